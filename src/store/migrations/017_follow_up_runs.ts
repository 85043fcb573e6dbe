import type { Kysely } from 'kysely';

/**
 * A run keeps the filters it was planned with (`runs.sync_filters`): its units and its fan-in read those, so a
 * PATCH during the run changes the next run, not the rest of this one. `collections.rerun_requested_at`: a
 * `sync_status: pending` sent while a run is active, honoured when that run ends (a follow-up run is queued).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runs').addColumn('sync_filters', 'text').execute();
  await db.schema.alterTable('collections').addColumn('rerun_requested_at', 'text').execute();
  // Runs going through this upgrade were planned with what their collection holds now (a queued run takes its
  // filters when it starts).
  await db
    .updateTable('runs')
    .set((eb) => ({
      sync_filters: eb
        .selectFrom('collections')
        .select('collections.sync_filters')
        .whereRef('collections.id', '=', 'runs.collection_id'),
    }))
    .where('status', '=', 'running')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runs').dropColumn('sync_filters').execute();
  await db.schema.alterTable('collections').dropColumn('rerun_requested_at').execute();
}
