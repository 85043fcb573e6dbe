import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Search index (SQLite FTS5 or PostgreSQL tsvector + GIN), legal holds and the audit log.
 * The audit log has no foreign keys on purpose: deleting a workspace or a collection never deletes its trail.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  if (postgres) {
    await sql`
      create table search_docs (
        item_id text primary key,
        collection_id text not null,
        name text not null,
        path text not null,
        meta_text text not null,
        item_text text not null,
        content_text text not null,
        tsv tsvector not null
      )`.execute(db);
    await sql`create index search_docs_tsv on search_docs using gin (tsv)`.execute(db);
  } else {
    await sql`
      create table search_docs (
        doc_id integer primary key,
        item_id text not null unique,
        collection_id text not null,
        name text not null,
        path text not null,
        meta_text text not null,
        item_text text not null,
        content_text text not null
      )`.execute(db);
    // Contentless: the words live only in the index; search_docs keeps the original text for highlights.
    await sql`
      create virtual table search_fts using fts5(
        name, path, meta, body, kind, custodian,
        content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
      )`.execute(db);
  }
  await db.schema.createIndex('search_docs_collection').on('search_docs').column('collection_id').execute();

  await db.schema
    .createTable('legal_holds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by_client', 'text', (c) => c.notNull())
    .addColumn('released_at', 'text')
    .addColumn('released_by_client', 'text')
    .execute();
  await db.schema
    .createIndex('legal_holds_account')
    .on('legal_holds')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('legal_holds_workspace').on('legal_holds').column('workspace_id').execute();
  await db.schema
    .createTable('legal_hold_collections')
    .addColumn('hold_id', 'text', (c) => c.notNull().references('legal_holds.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('legal_hold_collections_pk', ['hold_id', 'collection_id'])
    .execute();
  await db.schema
    .createIndex('legal_hold_collections_collection')
    .on('legal_hold_collections')
    .column('collection_id')
    .execute();

  // seq orders the log (newest first) and pages it; id is the public identifier.
  await db.schema
    .createTable('audit_log')
    .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text')
    .addColumn('client_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('correlation_id', 'text')
    .addColumn('detail', 'text')
    .execute();
  await db.schema.createIndex('audit_log_account').on('audit_log').columns(['account_id', 'seq']).execute();
  await db.schema.createIndex('audit_log_target').on('audit_log').columns(['account_id', 'target_id', 'seq']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const t of ['audit_log', 'legal_hold_collections', 'legal_holds', 'search_docs'])
    await db.schema.dropTable(t).execute();
  if (!postgres) await sql`drop table search_fts`.execute(db);
}
