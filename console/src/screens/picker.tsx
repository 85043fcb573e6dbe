import { useState } from 'preact/hooks';
import { ErrorBox, LoadMore } from '../ui.tsx';

/** The spec's selection object over ids: everything minus `excluded`, or only `selected`. */
export interface IdSelection {
  all_selected: boolean;
  selected: Array<{ id: string }>;
  excluded: Array<{ id: string }>;
}

export const NONE: IdSelection = { all_selected: false, selected: [], excluded: [] };
export const ALL: IdSelection = { all_selected: true, selected: [], excluded: [] };

export function isSelected(sel: IdSelection, id: string): boolean {
  return sel.all_selected ? !sel.excluded.some((e) => e.id === id) : sel.selected.some((e) => e.id === id);
}

export function toggle(sel: IdSelection, id: string, on: boolean): IdSelection {
  const list = sel.all_selected ? 'excluded' : 'selected';
  // In "all" mode a checked box means "not excluded".
  const add = sel.all_selected ? !on : on;
  const rest = sel[list].filter((e) => e.id !== id);
  return { ...sel, [list]: add ? [...rest, { id }] : rest };
}

export interface PickRow {
  id: string;
  label: string;
  detail?: string;
}

/**
 * Picks ids from a long paged list (thousands of users): search within what is loaded, select all (then
 * unticking excludes), load further pages on demand.
 */
export function Picker(props: {
  legend: string;
  name: string;
  rows: PickRow[];
  value: IdSelection;
  onChange(next: IdSelection): void;
  paged: { loading: boolean; done: boolean; error?: unknown; more(): void };
}) {
  const { rows, value, onChange } = props;
  const [search, setSearch] = useState('');
  const needle = search.trim().toLowerCase();
  const shown = needle
    ? rows.filter((r) => `${r.label} ${r.detail ?? ''} ${r.id}`.toLowerCase().includes(needle))
    : rows;
  const summary = value.all_selected
    ? `All${props.paged.done ? ` ${rows.length}` : ''}${value.excluded.length ? `, except ${value.excluded.length}` : ''}`
    : `${value.selected.length} selected`;
  return (
    <fieldset class="picker">
      <legend>
        {props.legend} <span class="muted">({summary})</span>
      </legend>
      <div class="picker-tools">
        <label>
          Search
          <input
            type="search"
            name={`${props.name}_search`}
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
            placeholder="Name, e-mail or id"
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            name={`${props.name}_all`}
            checked={value.all_selected}
            onChange={(e) => onChange(e.currentTarget.checked ? ALL : NONE)}
          />
          Select all
        </label>
      </div>
      <ul class="pick-list" aria-label={props.legend}>
        {shown.map((r) => (
          <li key={r.id}>
            <label class="check">
              <input
                type="checkbox"
                name={props.name}
                value={r.id}
                checked={isSelected(value, r.id)}
                onChange={(e) => onChange(toggle(value, r.id, e.currentTarget.checked))}
              />
              <span>
                {r.label}
                {r.detail && <span class="muted"> · {r.detail}</span>}
              </span>
            </label>
          </li>
        ))}
        {shown.length === 0 && !props.paged.loading && <li class="muted">Nothing {needle ? 'matches' : 'here'}.</li>}
      </ul>
      <ErrorBox error={props.paged.error} />
      <LoadMore paged={props.paged} label={`Load more (${rows.length} loaded)`} />
    </fieldset>
  );
}
