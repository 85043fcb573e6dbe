// A run's counts, written once: the reconciliation tally of its units is the one source of the run's counters, and
// the pieces no unit reached (cancelled, or named in the filters but never listed) are reported in it.
import type { RunRow } from '../../store/runs.ts';
import { emptyTally, type Tally, type UnitState } from '../../store/units.ts';
import type { Repos } from '../../store/repos.ts';
import type { EventData } from '../../domain/events.ts';

export const COUNT_FIELDS = ['listed', 'collected', 'unchanged', 'excluded', 'not_present', 'failed'] as const;
export type Counts = Record<(typeof COUNT_FIELDS)[number], number>;

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

/** A unit's `run.progress`: its reconciliation entry's numbers, its names and status. */
export function progressData(runId: string, u: UnitState): EventData['run.progress'] {
  return {
    run_id: runId,
    custodian: u.key,
    custodian_name: u.name,
    custodian_email: u.email,
    status: u.status,
    ...countsOf(u),
    skipped: u.skipped,
    bytes: u.bytes,
  };
}

/**
 * A cancelled run's unfinished units: each gets a `not_reached` exception in its reconciliation, and a last
 * `run.progress` with that status and its numbers (a stopped unit writes nothing more: its bar settles here).
 */
export async function markNotReached(
  tx: Pick<Repos, 'units' | 'events'>,
  run: Pick<RunRow, 'id' | 'account_id' | 'collection_id'>,
  at: string,
): Promise<void> {
  const runId = run.id;
  const keys = new Set(await tx.units.markNotReached(runId, at));
  if (keys.size === 0) return;
  const rows = (await tx.units.list(runId)).filter((u) => keys.has(u.unit_key));
  await tx.units.addExceptions(
    rows.map((u) => ({
      run_id: runId,
      collection_id: run.collection_id,
      unit_key: u.unit_key,
      source_id: u.unit_key,
      kind: u.kind,
      name: u.email ?? u.unit_key,
      outcome: 'not_reached',
      reason: 'the run was cancelled before this unit was finished',
      at,
    })),
  );
  for (const u of rows)
    await tx.events.append({
      accountId: run.account_id,
      collectionId: run.collection_id,
      runId,
      type: 'run.progress',
      data: progressData(runId, { ...u, key: u.unit_key }),
      at,
    });
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
