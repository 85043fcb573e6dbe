// A run's counters: while it runs, its row's (what its planning counted) plus what its units counted, added when
// read; once it ended or was cancelled, its row's, to which its units' were added once (foldUnitCounters).
import { sql } from 'kysely';
import type { Counters, RunRow } from './runs.ts';
import type { Executor } from './transaction.ts';
import type { UnitJobRow } from './unit-jobs.ts';

export const COUNTERS = ['listed', 'collected', 'skipped', 'unchanged', 'failed', 'bytes', 'error_count'] as const;

export function unitCountersOf(row: Pick<UnitJobRow, (typeof COUNTERS)[number]>): Counters {
  return Object.fromEntries(COUNTERS.map((c) => [c, Number(row[c])])) as unknown as Counters;
}

/**
 * Adds every unit's counters to the run's, once, in the transaction that ends the run (fan-in) or cancels it: until
 * then they are on the units' rows only, and readers add them (liveRunCounters).
 */
export async function foldUnitCounters(db: Executor, runId: string): Promise<void> {
  await db
    .updateTable('runs')
    .set(
      Object.fromEntries(
        COUNTERS.map((c) => [
          c,
          sql`${sql.ref(c)} + (select coalesce(sum(${sql.ref(`u.${c}`)}), 0) from unit_jobs as u where u.run_id = ${runId})`,
        ]),
      ),
    )
    .where('id', '=', runId)
    .execute();
}

/**
 * Runs' counters as of now, each read in one statement: a running run's own (what its planning counted) plus what
 * its units have counted so far; another's, its row's. Runs not found are absent.
 */
export async function liveRunCounters(db: Executor, runIds: string[]): Promise<Map<string, Counters>> {
  const out = new Map<string, Counters>();
  if (runIds.length === 0) return out;
  const rows = await db
    .selectFrom('runs')
    // an ended or cancelled run's row holds its units' already (foldUnitCounters)
    .leftJoin('unit_jobs as u', (join) => join.onRef('u.run_id', '=', 'runs.id').on('runs.status', '=', 'running'))
    .select([
      'runs.id',
      ...COUNTERS.map((c) => sql<number>`max(${sql.ref(`runs.${c}`)}) + coalesce(sum(${sql.ref(`u.${c}`)}), 0)`.as(c)),
    ])
    .where('runs.id', 'in', runIds)
    .groupBy('runs.id')
    .execute();
  for (const r of rows) out.set(r.id, unitCountersOf(r));
  return out;
}

/** These runs as readers show them: a running one with the counters its units add (liveRunCounters). */
export async function withLiveCounters<T extends Pick<RunRow, 'id' | 'status' | keyof Counters>>(
  db: Executor,
  runs: T[],
): Promise<T[]> {
  const live = await liveRunCounters(
    db,
    runs.filter((r) => r.status === 'running').map((r) => r.id),
  );
  return runs.map((r) => ({ ...r, ...live.get(r.id) }));
}
