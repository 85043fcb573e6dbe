import { useState } from 'preact/hooks';
import { formatDate } from '../api.ts';
import type { Session } from '../app.tsx';
import { ErrorBox, LoadMore, useAction, usePaged } from '../ui.tsx';

export function WorkspacesScreen({ session }: { session: Session }) {
  const { custody } = session;
  const paged = usePaged(async (cursor) => {
    const page = await custody.ok(custody.api.GET('/v1/workspaces', { params: { query: { cursor, limit: 50 } } }));
    return { items: page.items, next: page.cursor };
  }, []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction(async () => {
    await custody.ok(custody.api.POST('/v1/workspaces', { body: { name, description } }));
    setName('');
    setDescription('');
    void paged.reload();
  });
  return (
    <section>
      <h1>Workspaces</h1>
      <form
        class="card inline"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <h2>New workspace</h2>
        <label>
          Name
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Description
          <input value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={create.busy}>
          Create workspace
        </button>
        <ErrorBox error={create.error} />
      </form>
      <ErrorBox error={paged.error} />
      <table>
        <caption class="sr-only">Workspaces</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Description</th>
            <th scope="col">Created</th>
            <th scope="col">Collections</th>
          </tr>
        </thead>
        <tbody>
          {paged.rows.map((w) => (
            <tr key={w.onna_id}>
              <td>{w.name}</td>
              <td>{w.description}</td>
              <td>{formatDate(w.creation_datetime)}</td>
              <td>
                <a href={`#/collections?workspace=${encodeURIComponent(w.onna_id)}`}>Open collections</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {paged.done && paged.rows.length === 0 && <p>No workspace yet: create one above.</p>}
      <LoadMore paged={paged} />
    </section>
  );
}
