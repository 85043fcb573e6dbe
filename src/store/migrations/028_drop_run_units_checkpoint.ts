import type { Kysely } from 'kysely';

/**
 * Issue 22. `run_units.checkpoint` was never read: a unit's resume point is `unit_jobs.checkpoint`, fenced on the
 * unit's lease, and a run collected in place keeps `runs.checkpoint`. The column goes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('run_units').dropColumn('checkpoint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('run_units').addColumn('checkpoint', 'text').execute();
}
