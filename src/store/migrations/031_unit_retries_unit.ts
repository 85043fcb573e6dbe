import { sql, type Kysely } from 'kysely';

/**
 * Issue 25. The retry list by unit: each unit of a fanned-out run reads its own pieces to collect again, not the
 * collection's whole list (after a run where many custodians left a failed piece, N rows read by each of N units).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index unit_retries_unit on unit_retries (collection_id, unit_key)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('unit_retries_unit').execute();
}
