// What each registered job does. The engine supplies the operations; this file only decides, per job, which to run.
import type { Logger } from '../../connectors/types.ts';
import type { CollectionRepo } from '../../store/collections.ts';
import type { RunRepo, RunRow, RunTrigger } from '../../store/runs.ts';
import type { Queue } from './queue.ts';
import { checkHandlers, type JobHandlers } from './registry.ts';

export interface JobHandlerDeps {
  runs: RunRepo;
  collections: CollectionRepo;
  queue: Queue;
  clock: () => Date;
  log: Logger;
  runOnce(runId: string): Promise<{ status: string }>;
  runUnit(runId: string, unitKey: string): Promise<unknown>;
  /** A planner fanned the run out: each unit not ended yet becomes a job. */
  unitsQueued(runId: string): Promise<void>;
  /** After a run ends: its collection's next run (auto/arch re-run, or retry of a failed one) becomes a job. */
  scheduleNext(collectionId: string): Promise<void>;
  enqueue(collectionId: string, trigger: RunTrigger): Promise<{ run: RunRow; created: boolean }>;
  /** The scheduler's safety-net pass (repairs, due schedules). */
  tick(): Promise<unknown>;
  claimableRunIds(limit: number): Promise<string[]>;
  runQueued(id: string): Promise<unknown>;
  runExport(exportId: string): Promise<unknown>;
}

export function jobHandlers(d: JobHandlerDeps): JobHandlers {
  return checkHandlers([
    [
      'custody.run',
      async ({ run_id }: { run_id: string }) => {
        const run = await d.runs.get(run_id);
        const outcome = await d.runOnce(run_id);
        if (outcome.status === 'fanned_out') return void (await d.unitsQueued(run_id));
        if (run && outcome.status !== 'not_claimed' && outcome.status !== 'interrupted')
          await d.scheduleNext(run.collection_id);
      },
    ],
    [
      'custody.unit',
      async ({ run_id, unit_key }: { run_id: string; unit_key: string }) => {
        await d.runUnit(run_id, unit_key);
      },
    ],
    [
      'custody.schedule',
      async ({ collection_id }: { collection_id: string }) => {
        const c = await d.collections.getById(collection_id);
        if (!c || c.deleting_at !== null || c.next_sync_at === null) return;
        if (new Date(c.next_sync_at) > d.clock())
          return void (await d.queue.scheduleCollection(collection_id, new Date(c.next_sync_at)));
        const rerun = c.sync_status === 'synced' && (c.type_sync === 'auto' || c.type_sync === 'arch');
        if (!rerun && c.sync_status !== 'failed') return;
        try {
          const { run, created } = await d.enqueue(collection_id, c.sync_status === 'failed' ? 'retry' : 'schedule');
          if (created) d.log.info({ collection_id, run_id: run.id, trigger: run.trigger }, 'scheduled run queued');
        } catch (err) {
          d.log.warn({ collection_id, err: (err as Error).message }, 'a scheduled run could not be queued');
        }
      },
    ],
    [
      'custody.export',
      async ({ export_id }: { export_id: string }) => {
        await d.runExport(export_id);
      },
    ],
    [
      'custody.sweep',
      async () => {
        await d.tick();
        for (const id of await d.claimableRunIds(100)) await d.runQueued(id);
      },
    ],
  ]);
}
