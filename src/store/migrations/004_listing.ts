import type { Kysely } from 'kysely';

/**
 * Deletions found by a complete listing (a connector's `listing_complete` event): every item remembers the last
 * run that saw it at the source, and a run remembers which run's marks it continues (a retry that resumes a
 * failed run's checkpoint keeps that run's marks). Unreferenced blobs are found by age for the orphan sweep.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('items').addColumn('last_seen_run_id', 'text').execute();
  await db.schema
    .createIndex('items_custodian_kind')
    .on('items')
    .columns(['collection_id', 'custodian', 'kind'])
    .execute();
  await db.schema.alterTable('runs').addColumn('listing_run_id', 'text').execute();
  await db.schema.createIndex('blob_refs_unreferenced').on('blob_refs').columns(['refs', 'updated_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('blob_refs_unreferenced').execute();
  await db.schema.alterTable('runs').dropColumn('listing_run_id').execute();
  await db.schema.dropIndex('items_custodian_kind').execute();
  await db.schema.alterTable('items').dropColumn('last_seen_run_id').execute();
}
