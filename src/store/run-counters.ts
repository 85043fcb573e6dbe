// A run's counters: its row's, to which each unit adds its own once it ended or was cancelled (UnitJobRepo.finish,
// cancelRun), plus, while it runs, what its units not yet ended have counted so far, added when read.
import { sql } from 'kysely';
import type { Counters, RunRow } from './runs.ts';
import type { Executor } from './transaction.ts';
import type { UnitJobRow } from './unit-jobs.ts';

export const COUNTERS = ['listed', 'collected', 'skipped', 'unchanged', 'failed', 'bytes', 'error_count'] as const;

export function unitCountersOf(row: Pick<UnitJobRow, (typeof COUNTERS)[number]>): Counters {
  return Object.fromEntries(COUNTERS.map((c) => [c, Number(row[c])])) as unknown as Counters;
}

/**
 * Adds counters to the run's, in the caller's transaction, which then holds the run's row. `whileRunning`: only
 * if the run still runs; `heartbeatAt`: stamps it too. False when no row was changed.
 */
export async function addToRun(
  db: Executor,
  runId: string,
  sum: Counters,
  opts: { whileRunning?: boolean; heartbeatAt?: string } = {},
): Promise<boolean> {
  let q = db
    .updateTable('runs')
    .set((eb) => ({
      ...(opts.heartbeatAt !== undefined && { heartbeat_at: opts.heartbeatAt }),
      ...Object.fromEntries(COUNTERS.map((c) => [c, eb(c, '+', sum[c])])),
    }))
    .where('id', '=', runId);
  if (opts.whileRunning) q = q.where('status', '=', 'running');
  return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
}

/** The counters of these units added up. */
export function sumOf(units: Array<Pick<UnitJobRow, (typeof COUNTERS)[number]>>): Counters {
  const sum = Object.fromEntries(COUNTERS.map((c) => [c, 0])) as unknown as Counters;
  for (const u of units) for (const [c, n] of Object.entries(unitCountersOf(u))) sum[c as keyof Counters] += n;
  return sum;
}

/**
 * Runs' counters as of now, each read in one statement: its own (with its ended units') plus what its units not
 * yet ended have counted so far. Runs not found are absent.
 */
export async function liveRunCounters(db: Executor, runIds: string[]): Promise<Map<string, Counters>> {
  const out = new Map<string, Counters>();
  if (runIds.length === 0) return out;
  const rows = await db
    .selectFrom('runs')
    .leftJoin('unit_jobs as u', (join) =>
      join.onRef('u.run_id', '=', 'runs.id').on(sql<boolean>`u.status in ('queued', 'running')`),
    )
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

/** These runs as readers show them: a running one with the counters its units not yet ended add (liveRunCounters). */
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
