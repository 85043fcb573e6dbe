import type { Logger } from '../../connectors/types.ts';
import { CollectionRepo } from '../../store/collections.ts';
import type { Database } from '../../store/db.ts';
import { RunRepo } from '../../store/runs.ts';
import { backoffAfter, type RunBackoff } from '../../domain/run-outcome.ts';

export interface RepairDeps {
  db: Database;
  clock: () => Date;
  retry: RunBackoff;
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
export async function repairStuckCollections(deps: RepairDeps): Promise<number> {
  const stuck = await new CollectionRepo(deps.db).withoutPromisedRun(BATCH);
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
      deps.log.warn(
        { collection_id: c.id, err: (err as Error).message },
        'could not repair a collection left without its run',
      );
    }
  }
  if (repaired > 0) deps.log.warn({ repaired }, 'repaired collections whose run was missing');
  return repaired;
}

async function failStuck(deps: RepairDeps, collectionId: string): Promise<boolean> {
  const failures = (await new RunRepo(deps.db).consecutiveFailures(collectionId)) + 1;
  const backoff = backoffAfter(deps.retry, failures);
  const giveUp = backoff.giveUp;
  const now = deps.clock();
  const reason = giveUp ? `gave up after ${failures} failed runs in a row: ${STUCK_REASON}` : STUCK_REASON;
  return new CollectionRepo(deps.db).failWithoutRun(collectionId, giveUp ? 'error' : 'fail', {
    status_reason: reason,
    next_sync_at: backoff.giveUp ? null : new Date(now.getTime() + backoff.waitMs).toISOString(),
    updated_at: now.toISOString(),
  });
}
