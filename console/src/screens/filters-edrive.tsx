import { useEffect, useState } from 'preact/hooks';
import type { DriveUsersPage } from '../api.ts';
import type { Session } from '../app.tsx';
import { ErrorBox, usePaged } from '../ui.tsx';
import { ALL, isSelected, NONE, Picker, toggle, type IdSelection } from './picker.tsx';

type UserFolders = IdSelection & { filter_type: 'user_folders'; filter_name: string };

/** Custodians (drive users) and, for each, all folders or some, picked in a tree loaded one level at a time. */
export function EdriveFilters(props: {
  session: Session;
  collectionId: string;
  initial: unknown;
  onChange(f: Record<string, unknown>): void;
}) {
  const { custody } = props.session;
  const saved = (props.initial ?? {}) as Record<string, UserFolders>;
  const [users, setUsers] = useState<IdSelection>(() => ({
    ...NONE,
    selected: Object.keys(saved).map((id) => ({ id })),
  }));
  const [folders, setFolders] = useState<Record<string, IdSelection>>(() =>
    Object.fromEntries(
      Object.entries(saved).map(([id, f]) => [
        id,
        { all_selected: f.all_selected, selected: f.selected, excluded: f.excluded },
      ]),
    ),
  );

  const list = usePaged(
    async (marker) => {
      const page = (await custody.ok(
        custody.api.GET('/v1/collections/{id}/users', {
          params: { path: { id: props.collectionId }, query: { limit: 200, marker } },
        }),
      )) as DriveUsersPage;
      return { items: page.entries, next: page.next_marker };
    },
    [props.collectionId],
  );
  const rows = list.rows.map((u) => ({
    id: u.id,
    label: u.display_name ?? u.mail ?? u.id,
    detail: u.mail ?? u.user_principal_name ?? undefined,
  }));
  // edrive filters name each user: "all" means every user loaded so far, minus the unticked ones.
  const chosen = rows.filter((r) => isSelected(users, r.id));
  const chosenIds = users.all_selected ? chosen.map((r) => r.id) : users.selected.map((s) => s.id);

  useEffect(() => {
    const filters: Record<string, UserFolders> = {};
    for (const id of chosenIds)
      filters[id] = { ...(folders[id] ?? ALL), filter_type: 'user_folders', filter_name: 'User drive' };
    props.onChange(filters);
  }, [users, folders, list.rows.length]);

  return (
    <div class="stack">
      <Picker legend="Custodians" name="custodian" rows={rows} value={users} onChange={setUsers} paged={list} />
      {users.all_selected && !list.done && (
        <p class="muted">“Select all” covers the users loaded so far: load more to include the rest.</p>
      )}
      {chosenIds.length > 0 && <h3>Folders</h3>}
      {chosenIds.map((id) => (
        <UserFolderTree
          key={id}
          session={props.session}
          collectionId={props.collectionId}
          userId={id}
          label={rows.find((r) => r.id === id)?.label ?? id}
          value={folders[id] ?? ALL}
          onChange={(sel) => setFolders({ ...folders, [id]: sel })}
        />
      ))}
    </div>
  );
}

function UserFolderTree(props: {
  session: Session;
  collectionId: string;
  userId: string;
  label: string;
  value: IdSelection;
  onChange(sel: IdSelection): void;
}) {
  const [open, setOpen] = useState(false);
  const count = props.value.all_selected
    ? `all folders${props.value.excluded.length ? `, except ${props.value.excluded.length}` : ''}`
    : `${props.value.selected.length} folder(s)`;
  return (
    <details class="tree-user" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Folders of {props.label} <span class="muted">({count})</span>
      </summary>
      <label class="check">
        <input
          type="checkbox"
          name={`all_folders_${props.userId}`}
          checked={props.value.all_selected}
          onChange={(e) => props.onChange(e.currentTarget.checked ? ALL : NONE)}
        />
        All folders
      </label>
      {open && <FolderLevel {...props} parentId={undefined} />}
    </details>
  );
}

function FolderLevel(props: {
  session: Session;
  collectionId: string;
  userId: string;
  parentId: string | undefined;
  value: IdSelection;
  onChange(sel: IdSelection): void;
}) {
  const { custody } = props.session;
  const level = usePaged(
    async (cursor) => {
      const page = await custody.ok(
        custody.api.GET('/v1/collections/{id}/folders', {
          params: {
            path: { id: props.collectionId },
            query: { user_id: props.userId, ...(props.parentId && { parent_id: props.parentId }), cursor },
          },
        }),
      );
      return { items: page.results, next: page._next };
    },
    [props.collectionId, props.userId, props.parentId],
  );
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  return (
    <ul class="tree" role="group">
      {level.rows.map((f) => (
        <li key={f.id}>
          <button
            type="button"
            class="twisty"
            aria-expanded={expanded.has(f.id)}
            aria-label={`${expanded.has(f.id) ? 'Collapse' : 'Expand'} ${f.name}`}
            onClick={() => {
              const next = new Set(expanded);
              if (next.has(f.id)) next.delete(f.id);
              else next.add(f.id);
              setExpanded(next);
            }}
          >
            {expanded.has(f.id) ? '▾' : '▸'}
          </button>
          <label class="check">
            <input
              type="checkbox"
              name="folder"
              value={f.id}
              checked={isSelected(props.value, f.id)}
              onChange={(e) => props.onChange(toggle(props.value, f.id, e.currentTarget.checked))}
            />
            {f.name}
          </label>
          {expanded.has(f.id) && <FolderLevel {...props} parentId={f.id} />}
        </li>
      ))}
      {level.done && level.rows.length === 0 && <li class="muted">No subfolders.</li>}
      {level.loading && <li class="muted">Loading…</li>}
      <ErrorBox error={level.error} />
      {!level.done && !level.loading && (
        <li>
          <button type="button" class="link" onClick={() => void level.more()}>
            More folders…
          </button>
        </li>
      )}
    </ul>
  );
}
