import { sql, type Kysely } from 'kysely';

/**
 * Issue 25. Two partial indexes over the unit jobs not yet ended, which every unit's ending looked for by scanning the
 * run's units (10,000 custodians: 10,000 rows read 10,000 times):
 * - `unit_jobs_queued`: units by status in the order workers take them (a worker looks each time a unit ends);
 * - `unit_jobs_open`: a run's units still queued or running (is this ending the run's last? the run's live counters).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index unit_jobs_queued on unit_jobs (status, created_at, unit_key)`.execute(db);
  await sql`create index unit_jobs_open on unit_jobs (run_id) where status in ('queued', 'running')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('unit_jobs_open').execute();
  await db.schema.dropIndex('unit_jobs_queued').execute();
}
