import { sql, type Kysely } from 'kysely';

const COUNTERS = ['listed', 'collected', 'skipped', 'unchanged', 'failed', 'bytes', 'error_count'];

/**
 * Issue 25. A unit's end no longer adds its counters to its run's row: a running run's totals are its row plus all
 * its units' (run-counters.ts), and the units' are added to the row once, when the run ends or is cancelled. A run
 * still running when this code arrives holds the counters of the units that ended before: take them off once, or
 * they would count twice. (Stop the older workers before migrating: one still running would add them again.)
 */
export async function up(db: Kysely<any>): Promise<void> {
  await shiftRunning(db, '-');
}

/** The older code's form: the ended units' counters on the running run's row. */
export async function down(db: Kysely<any>): Promise<void> {
  await shiftRunning(db, '+');
}

async function shiftRunning(db: Kysely<any>, op: '+' | '-'): Promise<void> {
  const ended = (c: string) =>
    sql`(select coalesce(sum(${sql.ref(`u.${c}`)}), 0) from unit_jobs as u
          where u.run_id = runs.id and u.status not in ('queued', 'running'))`;
  await sql`update runs set ${sql.join(
    COUNTERS.map((c) => sql`${sql.ref(c)} = ${sql.ref(c)} ${sql.raw(op)} ${ended(c)}`),
  )} where status = 'running'`.execute(db);
}
