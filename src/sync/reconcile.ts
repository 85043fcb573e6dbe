import type { Logger } from '../connectors/types.ts';
import type { Database } from '../store/db.ts';
import { ACTIVE_STATUSES, RunRepo } from '../store/runs.ts';
import type { RetryPolicy } from './runner.ts';

export interface ReconcileDeps {
  db: Database;
  clock: () => Date;
  retry: RetryPolicy;
  /** Queues a run for a `pending` collection (the engine's enqueue). */
  requeue(collectionId: string): Promise<unknown>;
  log: Logger;
}

export const STUCK_REASON = 'the last run ended without updating the collection (its process stopped)';

const BATCH = 100;

/**
 * Repairs collections whose status promises a run that does not exist: `pending` or `syncing` with no queued or
 * running run. Today's writes change status and runs together, so only a process stopped between two writes of
 * an older version (or a hand-edited database) leaves this; without repair nothing would ever move it again.
 * `pending` gets its run queued; `syncing` becomes `failed`, retried at the backoff the runner would have set
 * (or `error` after too many failures in a row). Every change is a compare-and-swap that re-checks that no run
 * is active, so a run queued meanwhile by any process wins. Returns how many collections were repaired.
 */
export async function reconcileStuckCollections(deps: ReconcileDeps): Promise<number> {
  const stuck = await deps.db
    .selectFrom('collections as c')
    .select(['c.id', 'c.sync_status'])
    .where('c.sync_status', 'in', ['pending', 'syncing'])
    .where('c.deleting_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('runs as r').select('r.id').whereRef('r.collection_id', '=', 'c.id').where('r.status', 'in', [...ACTIVE_STATUSES]))),
    )
    .orderBy('c.id')
    .limit(BATCH)
    .execute();
  let repaired = 0;
  for (const c of stuck) {
    try {
      if (c.sync_status === 'pending') {
        await deps.requeue(c.id);
        repaired += 1;
      } else if (await failStuck(deps, c.id)) {
        repaired += 1;
      }
    } catch (err) {
      deps.log.warn({ collection_id: c.id, err: (err as Error).message }, 'could not repair a collection left without its run');
    }
  }
  if (repaired > 0) deps.log.warn({ repaired }, 'repaired collections whose run was missing');
  return repaired;
}

async function failStuck(deps: ReconcileDeps, collectionId: string): Promise<boolean> {
  const failures = (await new RunRepo(deps.db).consecutiveFailures(collectionId)) + 1;
  const giveUp = failures >= deps.retry.maxFailures;
  const now = deps.clock();
  const wait = Math.min(deps.retry.maxMs, deps.retry.baseMs * 2 ** (failures - 1));
  const res = await deps.db
    .updateTable('collections')
    .set({
      sync_status: giveUp ? 'error' : 'failed',
      status_reason: giveUp ? `gave up after ${failures} failed runs in a row: ${STUCK_REASON}` : STUCK_REASON,
      next_sync_at: giveUp ? null : new Date(now.getTime() + wait).toISOString(),
      updated_at: now.toISOString(),
    })
    .where('id', '=', collectionId)
    .where('sync_status', '=', 'syncing')
    .where('deleting_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('runs').select('runs.id').where('runs.collection_id', '=', collectionId).where('runs.status', 'in', [...ACTIVE_STATUSES]))),
    )
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
