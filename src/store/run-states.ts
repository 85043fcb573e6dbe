import type { Database } from './db.ts';

/** How many runs are queued and running right now, across every process (the custody_runs gauge). */
export async function countActiveRuns(db: Database): Promise<{ queued: number; running: number }> {
  const rows = await db
    .selectFrom('runs')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('status', 'in', ['queued', 'running'])
    .groupBy('status')
    .execute();
  const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
  return { queued: count('queued'), running: count('running') };
}
