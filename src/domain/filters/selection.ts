/** One problem of a sync_filters value, at a JSON pointer. */
export interface FilterIssue {
  pointer: string;
  message: string;
}

/** The spec's selection object: all minus `excluded`, or only `selected`. */
export interface Selection<T> {
  all_selected: boolean;
  selected: T[];
  excluded: T[];
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Does the selection include this id (entries of shape {id})? */
export function selectsId(selection: Selection<{ id: string }>, id: string): boolean {
  return selection.all_selected
    ? !selection.excluded.some((e) => e.id === id)
    : selection.selected.some((e) => e.id === id);
}

export function checkKeys(
  value: Record<string, unknown>,
  allowed: string[],
  pointer: string,
  issues: FilterIssue[],
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      issues.push({
        pointer: `${pointer}/${escapePointer(key)}`,
        message: `unknown key "${key}"; allowed keys: ${allowed.join(', ')}.`,
      });
    }
  }
}

export function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Checks a selection object's frame (all_selected boolean, selected and excluded arrays) and each entry with
 * `entry`. `extraKeys` are further keys the container may hold (edrive's filter_type, filter_name).
 */
export function checkSelection(
  value: unknown,
  pointer: string,
  issues: FilterIssue[],
  entry: (e: unknown, pointer: string, issues: FilterIssue[]) => void,
  extraKeys: string[] = [],
): void {
  if (!isObject(value)) {
    issues.push({ pointer, message: 'must be a selection object {all_selected, selected, excluded}.' });
    return;
  }
  checkKeys(value, ['all_selected', 'selected', 'excluded', 'sync_future', ...extraKeys], pointer, issues);
  if (typeof value.all_selected !== 'boolean')
    issues.push({ pointer: `${pointer}/all_selected`, message: 'must be a boolean.' });
  // A common selection field of the original product ("automatically include future items"). Every run collects
  // what the selection holds at that time, future items included; `false` is refused rather than ignored.
  if ('sync_future' in value && value.sync_future !== true) {
    issues.push({
      pointer: `${pointer}/sync_future`,
      message: 'only true is supported: every run collects what the selection holds at that time, new items included.',
    });
  }
  for (const list of ['selected', 'excluded'] as const) {
    const items = value[list];
    if (!Array.isArray(items)) {
      issues.push({ pointer: `${pointer}/${list}`, message: 'must be an array (send [] when empty).' });
      continue;
    }
    items.forEach((e, i) => entry(e, `${pointer}/${list}/${i}`, issues));
  }
}

/** An entry of shape {id: string} and nothing else. */
export function checkIdEntry(e: unknown, pointer: string, issues: FilterIssue[]): void {
  if (!isObject(e)) {
    issues.push({ pointer, message: 'must be an object {id}.' });
    return;
  }
  checkKeys(e, ['id'], pointer, issues);
  if (typeof e.id !== 'string' || e.id.length === 0)
    issues.push({ pointer: `${pointer}/id`, message: 'must be a non-empty string.' });
}
