// The defensibility report of a run: per unit (custodian or channel), what was listed and what became of it.
import type { Database } from '../store/db.ts';
import type { RunRow } from '../store/runs.ts';
import { csvCell } from './manifest.ts';
import { emptyTally, UnitRepo, type RunExceptionRow, type RunUnitRow, type Tally } from '../store/units.ts';
import type { Repos } from '../store/repos.ts';

export const COUNT_FIELDS = ['listed', 'collected', 'unchanged', 'excluded', 'not_present', 'failed'] as const;
export type Counts = Record<(typeof COUNT_FIELDS)[number], number>;

export interface ReconciliationException {
  source_id: string;
  kind: string;
  name: string;
  outcome: 'failed' | 'not_present' | 'not_reached' | 'provider_limit';
  reason: string;
}

export interface CustodianEntry extends Counts {
  custodian: string;
  /** custodian | channel */
  unit_kind: string;
  /** the custodian's name (a channel's name) and e-mail as collected (fixed contract); `email` is the same e-mail */
  custodian_name: string | null;
  custodian_email: string | null;
  email: string | null;
  exceptions: ReconciliationException[];
}

export interface Reconciliation {
  run_id: string;
  status: string;
  balanced: boolean;
  totals: Counts;
  custodians: CustodianEntry[];
}

/** Counts as reported: a piece seen twice by one run (a resume after a crash) is listed once. */
export function countsOf(t: Pick<Tally, (typeof COUNT_FIELDS)[number] | 'skipped'>): Counts {
  return {
    listed: t.listed - t.skipped,
    collected: t.collected,
    unchanged: t.unchanged,
    excluded: t.excluded,
    not_present: t.not_present,
    failed: t.failed,
  };
}

/** The run's tally: its units' counts added up; undefined when it has no units. */
export function tallyOf(units: Tally[]): Tally | undefined {
  if (units.length === 0) return undefined;
  const t = emptyTally();
  for (const u of units) for (const f of Object.keys(t) as (keyof Tally)[]) t[f] += Number(u[f]);
  return t;
}

/**
 * A run's counters as every surface shows them: the reconciliation's categories from its tally (the one source),
 * with `skipped` beside them and the run's own `bytes`; a run without units (recorded before they were) shows its
 * own counters.
 */
export function runCounters(
  own: Pick<Tally, 'listed' | 'collected' | 'unchanged' | 'failed' | 'skipped' | 'bytes'>,
  tally: Tally | undefined,
): Counts & Pick<Tally, 'skipped' | 'bytes'> {
  return tally
    ? { ...countsOf(tally), skipped: tally.skipped, bytes: own.bytes }
    : { ...pickOwn(own), excluded: 0, not_present: 0 };
}

const pickOwn = ({ listed, collected, unchanged, failed, skipped, bytes }: Parameters<typeof runCounters>[0]) => ({
  listed,
  collected,
  unchanged,
  failed,
  skipped,
  bytes,
});

/** listed = collected + unchanged + excluded + not_present + failed */
export function isBalanced(c: Counts): boolean {
  return c.listed === c.collected + c.unchanged + c.excluded + c.not_present + c.failed;
}

export function buildReconciliation(
  run: Pick<RunRow, 'id' | 'status'>,
  units: RunUnitRow[],
  exceptions: RunExceptionRow[],
): Reconciliation {
  const byUnit = new Map<string, ReconciliationException[]>();
  for (const e of exceptions) {
    const list = byUnit.get(e.unit_key) ?? [];
    list.push({
      source_id: e.source_id,
      kind: e.kind,
      name: e.name,
      outcome: e.outcome as ReconciliationException['outcome'],
      reason: e.reason,
    });
    byUnit.set(e.unit_key, list);
  }
  const totals: Counts = { listed: 0, collected: 0, unchanged: 0, excluded: 0, not_present: 0, failed: 0 };
  const custodians = units.map((u) => {
    const counts = countsOf(u);
    for (const f of COUNT_FIELDS) totals[f] += counts[f];
    return {
      custodian: u.unit_key,
      unit_kind: u.kind,
      custodian_name: u.name,
      custodian_email: u.email,
      email: u.email,
      ...counts,
      exceptions: byUnit.get(u.unit_key) ?? [],
    };
  });
  return {
    run_id: run.id,
    status: run.status,
    balanced: isBalanced(totals) && custodians.every(isBalanced),
    totals,
    custodians,
  };
}

export async function loadReconciliation(db: Database, run: Pick<RunRow, 'id' | 'status'>): Promise<Reconciliation> {
  const units = new UnitRepo(db);
  return buildReconciliation(run, await units.list(run.id), await units.exceptions(run.id));
}

const csvLine = (cells: Array<string | number | null>) => `${cells.map(csvCell).join(',')}\r\n`;

/** One row per custodian with the counts (`rows=custodians`), or one row per exception (`rows=exceptions`). */
export function reconciliationCsv(r: Reconciliation, rows: 'custodians' | 'exceptions'): string {
  if (rows === 'exceptions') {
    let out = csvLine(['run_id', 'custodian', 'email', 'source_id', 'kind', 'name', 'outcome', 'reason']);
    for (const c of r.custodians) {
      for (const e of c.exceptions)
        out += csvLine([r.run_id, c.custodian, c.email, e.source_id, e.kind, e.name, e.outcome, e.reason]);
    }
    return out;
  }
  let out = csvLine(['run_id', 'custodian', 'unit_kind', 'email', ...COUNT_FIELDS, 'exceptions']);
  for (const c of r.custodians)
    out += csvLine([
      r.run_id,
      c.custodian,
      c.unit_kind,
      c.email,
      ...COUNT_FIELDS.map((f) => c[f]),
      c.exceptions.length,
    ]);
  return out;
}

/** A cancelled run's unfinished units: each gets a `not_reached` exception in its reconciliation. */
export async function markNotReached(units: UnitRepo, runId: string, collectionId: string, at: string): Promise<void> {
  const keys = new Set(await units.markNotReached(runId, at));
  if (keys.size === 0) return;
  const rows = (await units.list(runId)).filter((u) => keys.has(u.unit_key));
  await units.addExceptions(
    rows.map((u) => ({
      run_id: runId,
      collection_id: collectionId,
      unit_key: u.unit_key,
      source_id: u.unit_key,
      kind: u.kind,
      name: u.email ?? u.unit_key,
      outcome: 'not_reached',
      reason: 'the run was cancelled before this unit was finished',
      at,
    })),
  );
}

/**
 * Each piece named in the filters that no unit reached: a failed unit of the reconciliation, with its reason, counted
 * as failed in the run. Once per run: a run executed again after a crash finds them reported already.
 */
export async function reportUnreached(
  tx: Repos,
  run: RunRow,
  unreached: Array<{ key: string; kind: string; reason: string }>,
  at: string,
): Promise<void> {
  const reported = new Set((await tx.units.list(run.id)).map((u) => u.unit_key));
  const missed = unreached.filter((m) => !reported.has(m.key));
  if (missed.length === 0) return;
  const ids = { run_id: run.id, collection_id: run.collection_id };
  await tx.units.save(
    run.id,
    run.collection_id,
    missed.map((m) => ({
      ...emptyTally(),
      key: m.key,
      kind: m.kind,
      email: null,
      name: null,
      status: 'failed',
      listed: 1,
      failed: 1,
    })),
    at,
  );
  await tx.units.addExceptions(
    missed.map((m) => ({
      ...ids,
      unit_key: m.key,
      source_id: m.key,
      kind: m.kind,
      name: m.key,
      outcome: 'failed',
      reason: m.reason,
      at,
    })),
  );
  await tx.runErrors.add(missed.map((m) => ({ ...ids, source_id: m.key, kind: m.kind, reason: m.reason, at })));
  await tx.runs.countFailures(run.id, missed.length);
}
