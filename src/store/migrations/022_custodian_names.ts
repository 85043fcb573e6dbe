import { sql, type Kysely } from 'kysely';

/**
 * Names next to ids (issue 23): `items.custodian_name` / `items.custodian_email` and `run_units.name` are written
 * at collection time from what the provider said of the custodian then (a Zoom channel: its name, no e-mail), so
 * they are still served after the user is deleted at the provider. Rows collected before stay null until seen again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('items').addColumn('custodian_name', 'text').execute();
  await db.schema.alterTable('items').addColumn('custodian_email', 'text').execute();
  await db.schema.alterTable('run_units').addColumn('name', 'text').execute();
  // custodian filters take an e-mail in any case (items list, search)
  await sql`create index items_custodian_email on items (collection_id, lower(custodian_email))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('items_custodian_email').execute();
  await db.schema.alterTable('run_units').dropColumn('name').execute();
  await db.schema.alterTable('items').dropColumn('custodian_email').execute();
  await db.schema.alterTable('items').dropColumn('custodian_name').execute();
}
