import { sql, type Kysely } from 'kysely';

/**
 * Issue 25. Two partial indexes that hold a few rows, not one per item: the account's tombstoned items (a search
 * without item-level filters leaves them out by id instead of joining every match to its item), and the items with
 * superseded versions (the manifest's summary counts their versions without reading every item).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index items_tombstoned on items (account_id) where tombstoned_at is not null`.execute(db);
  await sql`create index items_versions on items (collection_id, id) where previous_versions is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('items_versions').execute();
  await db.schema.dropIndex('items_tombstoned').execute();
}
