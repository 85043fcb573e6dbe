import { useRef, useState } from 'preact/hooks';
import { custodianLabel, download } from '../api.ts';
import type { Session } from '../app.tsx';
import { ErrorBox, StatusBadge, useAction } from '../ui.tsx';

const COUNTS = ['listed', 'collected', 'unchanged', 'excluded', 'not_present', 'failed'] as const;
type Counts = Record<(typeof COUNTS)[number], number>;
const HEADINGS: Record<(typeof COUNTS)[number], string> = {
  listed: 'Listed',
  collected: 'Collected',
  unchanged: 'Unchanged',
  excluded: 'Excluded',
  not_present: 'Not present',
  failed: 'Failed',
};

interface Exception {
  source_id: string;
  kind: string;
  name: string;
  outcome: 'failed' | 'not_present' | 'not_reached' | 'provider_limit';
  reason: string;
}

interface Unit extends Counts {
  custodian: string;
  custodian_name?: string | null;
  custodian_email?: string | null;
  email: string | null;
  unit_kind: string;
  exceptions: Exception[];
}

interface Report {
  run_id: string;
  status: string;
  balanced: boolean;
  totals: Counts;
  custodians: Unit[];
}

/** What each exception outcome means, in the words of the people who read the report. */
const OUTCOMES: Record<Exception['outcome'], string> = {
  failed: 'could not be collected',
  not_present: 'not at the source',
  not_reached: 'not reached: the run stopped first',
  provider_limit: 'beyond what the provider serves',
};

/** A reason as people read it: an address the server left in (older runs) is not shown. */
const plain = (reason: string) => reason.replace(/\bhttps?:\/\/[^\s"'<>)]+/g, 'a provider address');

const who = (u: Unit) => custodianLabel({ ...u, custodian_email: u.custodian_email ?? u.email });

/**
 * A run's reconciliation as a report: the totals, a table per custodian (or channel), the exceptions with plain
 * reasons, the CSV forms of the API to download, and a print button that prints this report alone.
 */
export function ReconciliationReport({
  session,
  collectionId,
  runId,
}: {
  session: Session;
  collectionId: string;
  runId: string;
}) {
  const { custody } = session;
  const base = `/v1/collections/${encodeURIComponent(collectionId)}/runs/${encodeURIComponent(runId)}/reconciliation`;
  const [report, setReport] = useState<Report>();
  const load = useAction(async () => {
    const res = await custody.fetch(base);
    if (!res.ok)
      await custody.ok(Promise.resolve({ error: (await res.json().catch(() => undefined)) as unknown, response: res }));
    setReport((await res.json()) as Report);
  });
  const csv = useAction(async (rows: 'custodians' | 'exceptions') => {
    await download(await custody.fetch(`${base}?format=csv&rows=${rows}`), `reconciliation-${runId}-${rows}.csv`);
  });
  // Printing marks this report, and the print style sheet then shows it alone (style.css, @media print).
  const section = useRef<HTMLElement>(null);
  const print = () => {
    const el = section.current;
    if (!el) return;
    el.classList.add('report-print');
    document.body.classList.add('print-report');
    window.addEventListener(
      'afterprint',
      () => {
        el.classList.remove('report-print');
        document.body.classList.remove('print-report');
      },
      { once: true },
    );
    window.print();
  };

  return (
    <details
      class="reconciliation"
      onToggle={(e) => {
        if (e.currentTarget.open && !report && !load.busy) void load.run();
      }}
    >
      <summary>Reconciliation report</summary>
      <ErrorBox error={load.error ?? csv.error} />
      {load.busy && <p>Loading…</p>}
      {report && (
        <section ref={section} class="card report" aria-label={`Reconciliation of run ${runId}`}>
          <h3>
            Reconciliation of run {report.run_id} <StatusBadge status={report.status} />
          </h3>
          <p class={report.balanced ? 'balanced' : 'unbalanced'}>
            {report.balanced
              ? 'Every piece listed is accounted for: listed = collected + unchanged + excluded + not present + failed.'
              : 'The counts do not balance yet (the run may still be going).'}
          </p>
          <div class="actions no-print">
            <button type="button" class="secondary" onClick={() => void csv.run('custodians')} disabled={csv.busy}>
              Download CSV (per custodian)
            </button>
            <button type="button" class="secondary" onClick={() => void csv.run('exceptions')} disabled={csv.busy}>
              Download CSV (exceptions)
            </button>
            <button type="button" class="secondary" onClick={print}>
              Print
            </button>
          </div>
          <table class="report-table">
            <caption>Per custodian</caption>
            <thead>
              <tr>
                <th scope="col">Custodian or channel</th>
                {COUNTS.map((k) => (
                  <th scope="col" class="num">
                    {HEADINGS[k]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {report.custodians.map((u) => (
                <tr key={u.custodian}>
                  <th scope="row" title={u.custodian}>
                    {who(u)}
                    {u.unit_kind === 'channel' && <span class="muted"> (channel)</span>}
                  </th>
                  {COUNTS.map((k) => (
                    <td class="num">{u[k]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Total</th>
                {COUNTS.map((k) => (
                  <td class="num">{report.totals[k]}</td>
                ))}
              </tr>
            </tfoot>
          </table>
          <Exceptions units={report.custodians} />
        </section>
      )}
    </details>
  );
}

function Exceptions({ units }: { units: Unit[] }) {
  const withExceptions = units.filter((u) => u.exceptions.length > 0);
  if (withExceptions.length === 0) return <p>No exception: nothing failed, went missing or was left unreached.</p>;
  return (
    <>
      <h4>Exceptions</h4>
      <table class="exceptions">
        <caption class="sr-only">Exceptions</caption>
        <thead>
          <tr>
            <th scope="col">Custodian or channel</th>
            <th scope="col">Item</th>
            <th scope="col">Outcome</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {withExceptions.flatMap((u) =>
            u.exceptions.map((e) => (
              <tr>
                <td>{who(u)}</td>
                <td>
                  {e.name} <span class="muted">({e.kind.replace(/_/g, ' ')})</span>
                </td>
                <td>{OUTCOMES[e.outcome] ?? e.outcome}</td>
                <td class="reason">{plain(e.reason)}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </>
  );
}
