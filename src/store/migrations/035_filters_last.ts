import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Issue 25. On SQLite a row's columns are stored in their order, and a value larger than a page continues on a chain
 * of overflow pages: every column after `sync_filters` (its map of custodians, a megabyte at 10,000 of them) was
 * reached by walking that chain, and `CollectionRepo.getHead`, asked once per unit, reads such columns. The filters
 * become the last column here; a test (store/collections-layout.test.ts) keeps them last. PostgreSQL keeps a large
 * value out of line already: nothing changes there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`alter table collections rename column sync_filters to sync_filters_before_035`.execute(db);
  await sql`alter table collections add column sync_filters text`.execute(db);
  await sql`update collections set sync_filters = sync_filters_before_035`.execute(db);
  await sql`alter table collections drop column sync_filters_before_035`.execute(db);
}

export async function down(): Promise<void> {
  // the column's place is not part of the schema: nothing to undo
}
