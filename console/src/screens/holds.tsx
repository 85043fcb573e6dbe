import { useState } from 'preact/hooks';
import { collect, formatDate } from '../api.ts';
import type { Session } from '../app.tsx';
import { ErrorBox, LoadMore, useAction, useLoad, usePaged } from '../ui.tsx';

export function HoldsScreen({ session }: { session: Session }) {
  const { custody } = session;
  const holds = usePaged(async (cursor) => {
    const page = await custody.ok(
      custody.api.GET('/v1/legalhold/holds', { params: { query: { cursor, limit: 50, status: 'active' } } }),
    );
    return { items: page.items, next: page.cursor };
  }, []);
  const collections = useLoad(
    () =>
      collect(
        custody.each(async (cursor) => {
          const page = await custody.ok(
            custody.api.GET('/v1/collections', { params: { query: { cursor, limit: 200 } } }),
          );
          return { items: page.items, next: page.cursor };
        }),
        2000,
      ),
    [],
  );
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const place = useAction(async () => {
    if (chosen.length === 0) throw new Error('Choose at least one collection to hold.');
    await custody.ok(custody.api.POST('/v1/legalhold/holds', { body: { name, description, collection_ids: chosen } }));
    setName('');
    setDescription('');
    setChosen([]);
    void holds.reload();
  });
  const release = useAction(async (id: string, holdName: string) => {
    if (!confirm(`Release the legal hold “${holdName}”? Held content may then be deleted.`)) return;
    await custody.ok(custody.api.DELETE('/v1/legalhold/holds/{id}', { params: { path: { id } } }));
    void holds.reload();
  });
  const nameOf = (id: string) => collections.data?.find((c) => c.onna_id === id)?.name ?? id;
  return (
    <section>
      <h1>Legal holds</h1>
      <form
        class="card"
        aria-labelledby="place-h"
        onSubmit={(e) => {
          e.preventDefault();
          void place.run();
        }}
      >
        <h2 id="place-h">Place a hold</h2>
        <label>
          Name
          <input name="hold_name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Description
          <input name="hold_description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <fieldset>
          <legend>Collections to hold</legend>
          <ErrorBox error={collections.error} />
          <ul class="pick-list">
            {(collections.data ?? []).map((c) => (
              <li key={c.onna_id}>
                <label class="check">
                  <input
                    type="checkbox"
                    name="hold_collection"
                    value={c.onna_id}
                    checked={chosen.includes(c.onna_id)}
                    onChange={(e) =>
                      setChosen(
                        e.currentTarget.checked ? [...chosen, c.onna_id] : chosen.filter((x) => x !== c.onna_id),
                      )
                    }
                  />
                  {c.name} <span class="muted">· {c.type}</span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <button type="submit" disabled={place.busy}>
          Place hold
        </button>
        <ErrorBox error={place.error} />
      </form>
      <h2>Active holds</h2>
      <ErrorBox error={holds.error ?? release.error} />
      <table>
        <caption class="sr-only">Active legal holds</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Collections</th>
            <th scope="col">Placed</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {holds.rows.map((h) => (
            <tr key={h.onna_id}>
              <td>
                {h.name}
                {h.description && <div class="muted">{h.description}</div>}
              </td>
              <td>
                {h.collection_ids.map(nameOf).join(', ') || (h.workspace_id ? `workspace ${h.workspace_id}` : '—')}
              </td>
              <td>{formatDate(h.creation_datetime)}</td>
              <td>
                <button
                  type="button"
                  class="danger"
                  onClick={() => void release.run(h.onna_id, h.name)}
                  disabled={release.busy}
                >
                  Release<span class="sr-only"> {h.name}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {holds.done && holds.rows.length === 0 && <p class="muted">No active hold.</p>}
      <LoadMore paged={holds} />
    </section>
  );
}
