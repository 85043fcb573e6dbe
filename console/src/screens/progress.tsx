import { useEffect, useState } from 'preact/hooks';
import { custodianLabel, formatBytes, OUTCOMES, settledOf, type Outcome } from '../api.ts';
import type { Session } from '../app.tsx';
import { ErrorBox, FailureBox, ProgressBar, StatusBadge } from '../ui.tsx';
import type { Collection } from './collection.tsx';

interface Progress extends Partial<Record<Outcome, number>> {
  custodian: string;
  custodian_name?: string | null;
  custodian_email?: string | null;
  /** `done` or `failed` once the custodian's unit ended; `not_reached` when a cancel stopped it (its bar shows what settled). */
  status?: string;
  listed: number;
  bytes: number;
}

interface RunState {
  runId?: string;
  status: string;
  custodians: Record<string, Progress>;
}

const FAILED = new Set(['failed', 'error', 'cancelled']);

/** Live progress per custodian, from the collection's event stream; reconnects with Last-Event-ID. */
export function ProgressPanel({
  session,
  collection,
  onFinished,
}: {
  session: Session;
  collection: Collection;
  onFinished(): void;
}) {
  const { custody } = session;
  const [run, setRun] = useState<RunState>({ status: 'no run yet', custodians: {} });
  const [error, setError] = useState<unknown>();
  const [live, setLive] = useState(false);

  useEffect(() => {
    const abort = new AbortController();
    let lastEventId: string | undefined;
    void (async () => {
      while (!abort.signal.aborted) {
        try {
          setLive(true);
          for await (const e of custody.events(collection.onna_id, { lastEventId, signal: abort.signal })) {
            lastEventId = e.id ?? lastEventId;
            setError(undefined);
            const data = e.data as Record<string, unknown>;
            if (e.event === 'run.started') setRun({ runId: String(data.run_id), status: 'running', custodians: {} });
            if (e.event === 'run.progress') {
              const p = data as unknown as Progress & { run_id: string };
              setRun((r) => ({
                runId: p.run_id,
                status: r.runId === p.run_id ? r.status : 'running',
                custodians: { ...(r.runId === p.run_id ? r.custodians : {}), [p.custodian]: p },
              }));
            }
            if (e.event === 'run.finished') {
              setRun((r) => ({ ...r, runId: String(data.run_id), status: String(data.status) }));
              onFinished();
            }
          }
        } catch (err) {
          if (abort.signal.aborted) return;
          setError(err);
        }
        setLive(false);
        await new Promise((r) => setTimeout(r, 2000));
      }
    })();
    return () => abort.abort();
  }, [collection.onna_id]);

  // Until the stream has said something about it, the latest run as the collection reports it (re-read while active).
  const latest = collection.latest_run;
  const runId = run.runId ?? latest?.run_id;
  const status = latest && latest.run_id === runId ? latest.status : run.status;
  const rows = Object.values(run.custodians).sort((a, b) => custodianLabel(a).localeCompare(custodianLabel(b)));
  const total: Progress = { custodian: 'total', listed: 0, bytes: 0 };
  for (const r of rows) {
    total.listed += r.listed;
    total.bytes += r.bytes;
    for (const [k] of OUTCOMES) total[k] = (total[k] ?? 0) + (r[k] ?? 0);
  }
  const failedRun = FAILED.has(status);
  const active = !runId || status === 'running' || status === 'queued';
  return (
    <section class="panel" aria-labelledby="progress-h">
      <h2 id="progress-h">Live progress</h2>
      {failedRun && (
        <FailureBox title={`This run ${status === 'cancelled' ? 'was cancelled' : 'failed'}.`}>
          Run history lists what went wrong, custodian by custodian.
        </FailureBox>
      )}
      <p>
        Run {runId ?? '—'}: <StatusBadge status={runId ? status : 'no run yet'} /> · collection{' '}
        <StatusBadge status={collection.sync_status} />{' '}
        <span class="muted" role="status">
          {live ? 'live' : 'reconnecting…'}
        </span>
      </p>
      <ErrorBox error={error} />
      {rows.length > 0 && (
        <table>
          <caption class="sr-only">Progress per custodian</caption>
          <thead>
            <tr>
              <th scope="col">Custodian or channel</th>
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
              <th scope="col">Done</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.custodian}>
                <td title={r.custodian}>{custodianLabel(r)}</td>
                <td class="num">{r.listed}</td>
                {OUTCOMES.map(([k]) => (
                  <td key={k} class="num">
                    {r[k] ?? 0}
                  </td>
                ))}
                <td class="num">{formatBytes(r.bytes)}</td>
                <td>
                  <ProgressBar
                    done={r.status === 'done' || r.status === 'failed' ? r.listed : settledOf(r)}
                    total={r.listed}
                    label={`${custodianLabel(r)} progress`}
                    tone={failedRun ? 'failed' : (r.failed ?? 0) > 0 ? 'partial' : 'ok'}
                  />
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td class="num">{total.listed}</td>
              {OUTCOMES.map(([k]) => (
                <td key={k} class="num">
                  {total[k] ?? 0}
                </td>
              ))}
              <td class="num">{formatBytes(total.bytes)}</td>
              <td />
            </tr>
          </tfoot>
        </table>
      )}
      {rows.length === 0 && latest && latest.run_id === runId && (
        <p>
          Run totals{active ? ' so far' : ''}: {latest.counters.listed} listed,{' '}
          {OUTCOMES.map(([k, label]) => `${latest.counters[k]} ${label.toLowerCase()}`).join(', ')},{' '}
          {formatBytes(latest.counters.bytes)}.
        </p>
      )}
      {rows.length === 0 && (
        <p class="muted">
          {active ? 'No per-custodian progress reported for this run yet.' : 'No per-custodian progress was reported.'}
        </p>
      )}
    </section>
  );
}
