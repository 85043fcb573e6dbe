import type { FilterIssue } from './selection.ts';
import { checkIdEntry, checkKeys, checkSelection, isObject, selectsId, type Selection } from './selection.ts';

export const CONTENT_TYPES = ['chat', 'audio', 'video', 'transcript', 'AI-meeting-notes'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export type ChatEntry = { 'one-to-one': boolean } | { channels: Selection<{ id: string }> };

export interface ConfFilters {
  account_owners: Selection<{ id: string }>;
  content_selections: Selection<Partial<Record<ContentType, boolean>>>;
  /** Omitted: no chat at all. */
  chats?: Selection<ChatEntry>;
}

const TOP = ['account_owners', 'content_selections', 'chats'];

export function validateConfFilters(value: unknown): FilterIssue[] {
  const issues: FilterIssue[] = [];
  if (!isObject(value))
    return [{ pointer: '', message: `sync_filters must be an object with keys ${TOP.join(', ')}.` }];
  checkKeys(value, TOP, '', issues);
  for (const required of ['account_owners', 'content_selections']) {
    if (!(required in value)) issues.push({ pointer: `/${required}`, message: 'is required.' });
  }
  if ('account_owners' in value) checkSelection(value.account_owners, '/account_owners', issues, checkIdEntry);
  if ('content_selections' in value)
    checkSelection(value.content_selections, '/content_selections', issues, checkContentEntry);
  if ('chats' in value) checkSelection(value.chats, '/chats', issues, checkChatEntry);
  return issues;
}

function checkContentEntry(e: unknown, pointer: string, issues: FilterIssue[]): void {
  const keys = isObject(e) ? Object.keys(e) : [];
  if (!isObject(e) || keys.length !== 1 || !(CONTENT_TYPES as readonly string[]).includes(keys[0])) {
    issues.push({
      pointer,
      message: `must be a single-key object {<type>: boolean} with type one of ${CONTENT_TYPES.join(', ')}.`,
    });
    return;
  }
  if (typeof e[keys[0]] !== 'boolean') issues.push({ pointer: `${pointer}/${keys[0]}`, message: 'must be a boolean.' });
}

function checkChatEntry(e: unknown, pointer: string, issues: FilterIssue[]): void {
  const keys = isObject(e) ? Object.keys(e) : [];
  if (!isObject(e) || keys.length !== 1 || !['one-to-one', 'channels'].includes(keys[0])) {
    issues.push({ pointer, message: 'must be {"one-to-one": boolean} or {"channels": <selection of {id}>}.' });
    return;
  }
  if (keys[0] === 'one-to-one') {
    if (typeof e['one-to-one'] !== 'boolean')
      issues.push({ pointer: `${pointer}/one-to-one`, message: 'must be a boolean.' });
  } else {
    checkSelection(e.channels, `${pointer}/channels`, issues, checkIdEntry);
  }
}

/** Semantics: which content types a valid filter switches on. */
export function enabledContent(filters: ConfFilters): Set<ContentType> {
  const sel = filters.content_selections;
  const on = (list: Partial<Record<ContentType, boolean>>[], t: ContentType) => list.some((e) => e[t] === true);
  return new Set(CONTENT_TYPES.filter((t) => (sel.all_selected ? !on(sel.excluded, t) : on(sel.selected, t))));
}

export function ownerSelected(filters: ConfFilters, userId: string): boolean {
  return selectsId(filters.account_owners, userId);
}

/** One-to-one chats on? Channels selection (null = no channels)? No `chats` key: no chat at all. */
export function chatScope(filters: ConfFilters): { oneToOne: boolean; channels: Selection<{ id: string }> | null } {
  const chats = filters.chats;
  if (!chats) return { oneToOne: false, channels: null };
  const entries = chats.all_selected ? null : chats.selected;
  const excluded = chats.all_selected ? chats.excluded : [];
  const find = <K extends 'one-to-one' | 'channels'>(list: ChatEntry[], k: K) =>
    list.find((e) => k in e) as Record<K, unknown> | undefined;
  if (entries) {
    const o = find(entries, 'one-to-one');
    const c = find(entries, 'channels');
    return { oneToOne: o?.['one-to-one'] === true, channels: (c?.channels as Selection<{ id: string }>) ?? null };
  }
  // all_selected: one-to-one and every channel, minus what `excluded` switches off. A `channels` entry there
  // excludes the channels its own selection selects (all of them, or all but its `excluded`, or its `selected`).
  const o = find(excluded, 'one-to-one');
  const off = find(excluded, 'channels')?.channels as Selection<{ id: string }> | undefined;
  const channels: Selection<{ id: string }> = !off
    ? { all_selected: true, selected: [], excluded: [] }
    : off.all_selected
      ? { all_selected: false, selected: off.excluded, excluded: [] }
      : { all_selected: true, selected: [], excluded: off.selected };
  return { oneToOne: o?.['one-to-one'] !== true, channels };
}
