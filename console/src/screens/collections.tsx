import { useState } from 'preact/hooks';
import { collect, formatDate } from '../api.ts';
import { navigate, type Session } from '../app.tsx';
import { ErrorBox, LoadMore, StatusBadge, useAction, useLoad, usePaged } from '../ui.tsx';

const TYPES = [
  ['conf', 'Zoom (meetings, recordings, chats)'],
  ['edrive', 'OneDrive for Business'],
] as const;
const STATUSES = ['created', 'pending', 'syncing', 'synced', 'failed', 'error'] as const;
type Status = (typeof STATUSES)[number];

export function CollectionsScreen({ session }: { session: Session }) {
  const { custody } = session;
  const initialWorkspace = new URLSearchParams(location.hash.split('?')[1] ?? '').get('workspace') ?? '';
  const [workspace, setWorkspace] = useState(initialWorkspace);
  const [type, setType] = useState('');
  const [status, setStatus] = useState('');
  const workspaces = useLoad(
    () =>
      collect(
        custody.each(async (cursor) => {
          const page = await custody.ok(
            custody.api.GET('/v1/workspaces', { params: { query: { cursor, limit: 200 } } }),
          );
          return { items: page.items, next: page.cursor };
        }),
        1000,
      ),
    [],
  );
  const paged = usePaged(
    async (cursor) => {
      const query = {
        cursor,
        limit: 50,
        ...(workspace && { workspace }),
        ...(type && { type }),
        ...(status && { status: status as Status }),
      };
      const page = await custody.ok(custody.api.GET('/v1/collections', { params: { query } }));
      return { items: page.items, next: page.cursor };
    },
    [workspace, type, status],
  );
  const nameOf = (id: string) => workspaces.data?.find((w) => w.onna_id === id)?.name ?? id;

  const [name, setName] = useState('');
  const [newType, setNewType] = useState<'conf' | 'edrive'>('conf');
  const [newWorkspace, setNewWorkspace] = useState(initialWorkspace);
  const create = useAction(async () => {
    // Never a workspace the user did not pick: the list starts on "Choose a workspace…".
    const parent = newWorkspace;
    if (!parent)
      throw new Error(
        workspaces.data?.length ? 'Choose the workspace of the new collection.' : 'Create a workspace first.',
      );
    // The wallet that will hold this collection's credentials, created on the fly.
    const wallet = await custody.ok(
      custody.api.POST('/v1/wallet', {
        body: { name: `${name} credentials`, credential_type_name: 'Datasource', config_type: newType },
      }),
    );
    const created = await custody.ok(
      custody.api.POST('/v1/collections', {
        body: { name, onna_parent_id: parent, type: newType, credential_id: wallet.onna_id },
      }),
    );
    navigate(`#/collections/${encodeURIComponent(created.onna_id)}/setup`);
  });

  return (
    <section>
      <h1>Collections</h1>
      <form
        class="card inline"
        aria-labelledby="new-collection"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <h2 id="new-collection">New collection</h2>
        <label>
          Name
          <input name="collection_name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Workspace
          <select
            name="collection_workspace"
            required
            value={newWorkspace}
            onChange={(e) => setNewWorkspace(e.currentTarget.value)}
          >
            <option value="" disabled>
              Choose a workspace…
            </option>
            {(workspaces.data ?? []).map((w) => (
              <option value={w.onna_id}>{w.name}</option>
            ))}
          </select>
        </label>
        <label>
          Source
          <select
            name="collection_type"
            value={newType}
            onChange={(e) => setNewType(e.currentTarget.value as 'conf' | 'edrive')}
          >
            {TYPES.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={create.busy}>
          Create collection
        </button>
        <ErrorBox error={create.error} />
      </form>

      <fieldset class="filters">
        <legend>Show</legend>
        <label>
          Workspace
          <select value={workspace} onChange={(e) => setWorkspace(e.currentTarget.value)}>
            <option value="">All workspaces</option>
            {(workspaces.data ?? []).map((w) => (
              <option value={w.onna_id}>{w.name}</option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">All types</option>
            {TYPES.map(([value]) => (
              <option value={value}>{value}</option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
      </fieldset>
      <ErrorBox error={workspaces.error} />
      <ErrorBox error={paged.error} />
      <table>
        <caption class="sr-only">Collections</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Workspace</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {paged.rows.map((c) => (
            <tr key={c.onna_id}>
              <td>
                <a href={`#/collections/${encodeURIComponent(c.onna_id)}/setup`}>{c.name}</a>
              </td>
              <td>{c.type}</td>
              <td>{nameOf(c.onna_parent_id)}</td>
              <td>
                <StatusBadge status={c.sync_status} />
              </td>
              <td>{formatDate(c.creation_datetime)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {paged.done && paged.rows.length === 0 && <p>No collection matches.</p>}
      <LoadMore paged={paged} />
    </section>
  );
}
