import { sql, type Kysely } from 'kysely';

/**
 * Issue 25. A search without item-level filters (kind, custodian, dates) no longer joins every match to its item:
 * it leaves out the account's tombstoned items, found through this partial index (a few rows, not one per item).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index items_tombstoned on items (account_id) where tombstoned_at is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('items_tombstoned').execute();
}
