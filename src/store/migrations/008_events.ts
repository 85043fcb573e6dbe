import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * `events`: the outbox of what happened to runs, collections and holds (run.started, run.progress, run.finished,
 * collection.error, hold.placed, hold.released). Written by whichever process did the work, in the same
 * transaction where it can be; read by the event stream (`GET /v1/collections/{id}/events`) and by the outbound
 * webhook dispatcher, in `seq` order. No foreign keys: an event outlives what it describes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('events')
    .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text')
    .addColumn('run_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_collection').on('events').columns(['collection_id', 'seq']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('events').execute();
}
