import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Issue 25. Small content is kept in the database (blobs/db-tier.ts): one row per SHA-256, written with the page of
 * items that refers to it, instead of a file, a directory and three fsyncs per blob.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('small_blobs')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('bytes', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('small_blobs').execute();
}
