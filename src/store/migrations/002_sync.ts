import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('listed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('collected', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unchanged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('error_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('heartbeat_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('checkpoint', 'text')
    .addColumn('filters_fingerprint', 'text')
    .addColumn('pending_cursors', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('runs_collection').on('runs').columns(['collection_id', 'created_at']).execute();
  await db.schema.createIndex('runs_status').on('runs').columns(['status', 'created_at']).execute();
  // At most one active run per collection, whatever the number of API and worker processes.
  await sql`create unique index runs_one_active on runs (collection_id) where status in ('queued', 'running')`.execute(
    db,
  );

  await db.schema
    .createTable('run_errors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text')
    .addColumn('kind', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('run_errors_run').on('run_errors').columns(['run_id', 'at']).execute();
  await db.schema.createIndex('run_errors_collection').on('run_errors').column('collection_id').execute();

  await db.schema
    .createTable('items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('custodian', 'text')
    .addColumn('size', 'bigint')
    .addColumn('mime_type', 'text')
    .addColumn('sha256', 'text')
    .addColumn('md5', 'text')
    .addColumn('provider_hash_type', 'text')
    .addColumn('provider_hash_value', 'text')
    .addColumn('hash_verified', 'integer')
    .addColumn('created_datetime', 'text')
    .addColumn('modified_datetime', 'text')
    .addColumn('collected_datetime', 'text', (c) => c.notNull())
    .addColumn('deleted_at_source', 'text')
    .addColumn('tombstoned_at', 'text')
    .addColumn('content_state', 'text', (c) => c.notNull())
    .addColumn('holds_ref', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('version', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('previous_versions', 'text')
    .addColumn('first_seen_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('items_source_unique', ['collection_id', 'kind', 'source_id'])
    .execute();
  await db.schema.createIndex('items_page').on('items').columns(['collection_id', 'first_seen_at', 'id']).execute();
  await db.schema.createIndex('items_sha256').on('items').column('sha256').execute();

  await db.schema
    .createTable('collection_cursors')
    .addColumn('collection_id', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('filters_fingerprint', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('blob_refs')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
    .addColumn('refs', 'integer', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('credential_refresh_locks')
    .addColumn('wallet_id', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['credential_refresh_locks', 'blob_refs', 'collection_cursors', 'items', 'run_errors', 'runs']) {
    await db.schema.dropTable(t).execute();
  }
}
