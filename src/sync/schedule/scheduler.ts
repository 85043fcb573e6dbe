import { CollectionRepo } from '../../store/collections.ts';
import type { Database } from '../../store/db.ts';

export interface SchedulerOptions {
  db: Database;
  /** Queues a run; throws when the collection's state does not allow it (someone else was faster). */
  enqueue(collectionId: string, trigger: 'schedule' | 'retry'): Promise<unknown>;
  clock: () => Date;
  /** Repairs collections left `pending` or `syncing` without a run (sync/schedule/repair-stuck.ts); run first in each tick. */
  reconcile?(): Promise<number>;
  log: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

export interface Scheduler {
  /** One pass: repairs collections left without their run, then queues every due re-run and retry; returns how many were queued. */
  tick(): Promise<number>;
}

/**
 * `auto` and `arch` collections re-run SYNC_INTERVAL_MINUTES after their last success, or sooner at their polling
 * interval when their connector learns of changes by polling (the runner sets next_sync_at, sync/schedule/rerun.ts); `failed` ones are retried at the backoff time the runner set. Several processes may run a
 * scheduler: the state transition is a compare-and-swap, so each due collection is queued once. Each tick first
 * repairs collections whose status promises a run that does not exist (a process stopped between two writes).
 * Ticks are the `custody.sweep` job's (sync/jobs): the job queue, not a timer of its own, sets their pace.
 */
export function createScheduler(opts: SchedulerOptions): Scheduler {
  const due = () => new CollectionRepo(opts.db).dueForSync(opts.clock().toISOString(), 500);

  const tick = async () => {
    if (opts.reconcile) {
      await opts
        .reconcile()
        .catch((err: unknown) => opts.log.error({ err }, 'repairing collections left without their run failed'));
    }
    let queued = 0;
    for (const c of await due()) {
      try {
        await opts.enqueue(c.id, c.sync_status === 'failed' ? 'retry' : 'schedule');
        queued += 1;
      } catch (err) {
        opts.log.warn({ collection_id: c.id, err: (err as Error).message }, 'scheduler could not queue a run');
      }
    }
    return queued;
  };

  return { tick };
}
