import type { Kysely } from 'kysely';

/**
 * A run split into units (one per custodian or Zoom channel), each a job any worker takes:
 * - `unit_jobs`: per run and unit, who executes it (lease), its own checkpoint and cursors, and the counters it
 *   has added to the run so far;
 * - `unit_claims`: pieces two units could both reach (a Zoom channel several owners are members of) go to the
 *   one unit that claims them first in the run;
 * - `runs.units`: how many unit jobs the run was fanned out into (0: the run executes as one job).
 */
export async function up(db: Kysely<any>): Promise<void> {
  let jobs = db.schema
    .createTable('unit_jobs')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('unit_key', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('heartbeat_at', 'text')
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('checkpoint', 'text')
    .addColumn('pending_cursors', 'text')
    .addColumn('error', 'text')
    .addColumn('needs_action', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text');
  for (const n of ['listed', 'collected', 'skipped', 'unchanged', 'failed', 'bytes', 'error_count']) {
    jobs = jobs.addColumn(n, 'bigint', (c) => c.notNull().defaultTo(0));
  }
  await jobs.addPrimaryKeyConstraint('unit_jobs_pk', ['run_id', 'unit_key']).execute();
  await db.schema.createIndex('unit_jobs_status').on('unit_jobs').columns(['status', 'lease_expires_at']).execute();

  await db.schema
    .createTable('unit_claims')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('claim_key', 'text', (c) => c.notNull())
    .addColumn('unit_key', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('unit_claims_pk', ['run_id', 'claim_key'])
    .execute();

  await db.schema
    .alterTable('runs')
    .addColumn('units', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runs').dropColumn('units').execute();
  await db.schema.dropTable('unit_claims').execute();
  await db.schema.dropTable('unit_jobs').execute();
}
