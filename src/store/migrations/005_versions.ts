import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Superseded versions for every kind (sync/versions.ts): `version_refs` counts the blob references an item's
 * `previous_versions` hold, so that versions kept only for a legal hold can be found when it is released.
 * Zoom closed captions and timelines become `transcript` items (the contract has no kinds of their own);
 * metadata.file_type already tells them apart, and their source ids never collide with a transcript's.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .alterTable('items')
    .addColumn('version_refs', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Every version kept before this migration (arch only) held a reference.
  const length = postgres ? sql`json_array_length(previous_versions::json)` : sql`json_array_length(previous_versions)`;
  await sql`update items set version_refs = ${length} where previous_versions is not null`.execute(db);
  await db.schema.createIndex('items_version_refs').on('items').columns(['collection_id', 'version_refs']).execute();
  await sql`update items set kind = 'transcript' where kind in ('closed_caption', 'timeline')`.execute(db);
  await sql`update run_errors set kind = 'transcript' where kind in ('closed_caption', 'timeline')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('items_version_refs').execute();
  await db.schema.alterTable('items').dropColumn('version_refs').execute();
}
