import type { Kysely } from 'kysely';

/**
 * `unit_jobs.last_progress_at`: when the unit last made progress (a provider answer, a wait the provider stated, an
 * item, a checkpoint), written with each heartbeat. A unit without progress for UNIT_STALL_SECONDS is stopped and
 * retried, whatever its heartbeat says (issue 19).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('unit_jobs').addColumn('last_progress_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('unit_jobs').dropColumn('last_progress_at').execute();
}
