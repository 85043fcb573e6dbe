import { formatBytes, formatDate, OUTCOMES } from '../api.ts';
import type { Session } from '../app.tsx';
import { ErrorBox, LoadMore, StatusBadge, usePaged } from '../ui.tsx';
import { ReconciliationReport } from './reconciliation.tsx';

/** Run history with outcomes, errors and, where the server has it, the reconciliation of each run. */
export function RunsPanel({ session, collectionId }: { session: Session; collectionId: string }) {
  const { custody } = session;
  const runs = usePaged(
    async (cursor) => {
      const page = await custody.ok(
        custody.api.GET('/v1/collections/{id}/runs', {
          params: { path: { id: collectionId }, query: { cursor, limit: 20 } },
        }),
      );
      return { items: page.runs, next: page.cursor };
    },
    [collectionId],
  );
  const hasReconciliation = session.server.has('get', '/v1/collections/{id}/runs/{run_id}/reconciliation');
  return (
    <section class="panel" aria-labelledby="runs-h">
      <h2 id="runs-h">Run history</h2>
      <ErrorBox error={runs.error} />
      <table>
        <caption class="sr-only">Runs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Finished</th>
            <th scope="col">Trigger</th>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">
              Listed
            </th>
            {OUTCOMES.map(([k, label]) => (
              <th key={k} scope="col" class="num">
                {label}
              </th>
            ))}
            <th scope="col" class="num">
              Bytes
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.rows.map((r) => (
            <>
              <tr key={r.run_id}>
                <td>{formatDate(r.started_datetime)}</td>
                <td>{formatDate(r.finished_datetime)}</td>
                <td>{r.trigger}</td>
                <td>
                  <StatusBadge status={r.status} />
                  {r.error && <div class="muted">{r.error}</div>}
                </td>
                <td class="num">{r.counters.listed}</td>
                {OUTCOMES.map(([k]) => (
                  <td key={k} class="num">
                    {r.counters[k]}
                  </td>
                ))}
                <td class="num">{formatBytes(r.counters.bytes)}</td>
              </tr>
              {(r.errors.length > 0 || hasReconciliation) && (
                <tr class="sub">
                  <td colSpan={11}>
                    {r.errors.length > 0 && (
                      <details>
                        <summary>{r.error_count} error(s)</summary>
                        <ul>
                          {r.errors.map((e) => (
                            <li>
                              {e.kind ?? 'item'} {e.source_id ?? ''}: {e.reason}
                            </li>
                          ))}
                        </ul>
                      </details>
                    )}
                    {hasReconciliation && (
                      <ReconciliationReport session={session} collectionId={collectionId} runId={r.run_id} />
                    )}
                  </td>
                </tr>
              )}
            </>
          ))}
        </tbody>
      </table>
      {runs.done && runs.rows.length === 0 && <p class="muted">No run yet.</p>}
      <LoadMore paged={runs} />
    </section>
  );
}
