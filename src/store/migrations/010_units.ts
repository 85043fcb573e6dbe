import type { Kysely } from 'kysely';

/**
 * The unit model (a unit is one custodian's or one Zoom channel's share of a run):
 * - `run_units`: per run and unit, the reconciliation counts, the unit's state and its own checkpoint;
 * - `run_exceptions`: per run, every piece that failed, was not present at the source, or was not reached;
 * - `unit_retries`: per collection, the pieces that failed and are tried again by the following runs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  let units = db.schema
    .createTable('run_units')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('unit_key', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('checkpoint', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull());
  for (const n of ['listed', 'collected', 'unchanged', 'excluded', 'not_present', 'failed', 'skipped', 'bytes']) {
    units = units.addColumn(n, 'bigint', (c) => c.notNull().defaultTo(0));
  }
  await units.addPrimaryKeyConstraint('run_units_pk', ['run_id', 'unit_key']).execute();

  await db.schema
    .createTable('run_exceptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('unit_key', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('run_exceptions_run')
    .on('run_exceptions')
    .columns(['run_id', 'unit_key', 'at'])
    .execute();

  await db.schema
    .createTable('unit_retries')
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('unit_key', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('piece', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('permanent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('unit_retries_pk', ['collection_id', 'kind', 'source_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('unit_retries').execute();
  await db.schema.dropTable('run_exceptions').execute();
  await db.schema.dropTable('run_units').execute();
}
