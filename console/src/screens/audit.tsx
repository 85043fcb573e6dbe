import { useState } from 'preact/hooks';
import { formatDate } from '../api.ts';
import type { Session } from '../app.tsx';
import { ErrorBox, LoadMore, usePaged } from '../ui.tsx';

export function AuditScreen({ session }: { session: Session }) {
  const { custody } = session;
  const [action, setAction] = useState('');
  const [target, setTarget] = useState('');
  const log = usePaged(
    async (cursor) => {
      const query = {
        cursor,
        limit: 50,
        ...(action.trim() && { action: action.trim() }),
        ...(target.trim() && { target: target.trim() }),
      };
      const page = await custody.ok(custody.api.GET('/v1/audit', { params: { query } }));
      return { items: page.items, next: page.cursor };
    },
    [action, target],
  );
  return (
    <section>
      <h1>Audit log</h1>
      <fieldset class="filters">
        <legend>Filter</legend>
        <label>
          Action
          <input
            name="audit_action"
            value={action}
            onChange={(e) => setAction(e.currentTarget.value)}
            placeholder="collection.start"
          />
        </label>
        <label>
          Target id
          <input name="audit_target" value={target} onChange={(e) => setTarget(e.currentTarget.value)} />
        </label>
      </fieldset>
      <ErrorBox error={log.error} />
      <table>
        <caption class="sr-only">Audit entries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Outcome</th>
            <th scope="col">Client</th>
            <th scope="col">Correlation id</th>
          </tr>
        </thead>
        <tbody>
          {log.rows.map((e) => (
            <tr key={e.id}>
              <td>{formatDate(e.datetime)}</td>
              <td>{e.action}</td>
              <td>{e.target_id ?? '—'}</td>
              <td>
                {e.outcome}
                {e.status_code ? ` (${e.status_code})` : ''}
              </td>
              <td>{e.client_id ?? '—'}</td>
              <td class="mono">{e.correlation_id ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {log.done && log.rows.length === 0 && <p class="muted">No entry.</p>}
      <LoadMore paged={log} />
    </section>
  );
}
