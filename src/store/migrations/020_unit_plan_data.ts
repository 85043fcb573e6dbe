import type { Kysely } from 'kysely';

/**
 * `unit_jobs.plan_data`: JSON the plan hands one unit (a Zoom owner's entries of the account's summaries list,
 * read once per run at planning instead of once per owner). Null: nothing handed over.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('unit_jobs').addColumn('plan_data', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('unit_jobs').dropColumn('plan_data').execute();
}
