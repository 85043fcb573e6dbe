// What each registered job does, per job: a run or a unit goes to execution/ (run-worker.ts, unit-worker.ts), a
// due schedule becomes a run, the sweep hands again what is claimable. The engine builds the workers and the queue.
import type { Logger } from '../../connectors/types.ts';
import type { CollectionRepo } from '../../store/collections.ts';
import type { RunRepo, RunRow, RunTrigger } from '../../store/runs.ts';
import type { UnitJobRepo } from '../../store/unit-jobs.ts';
import type { RunWorker } from '../execution/run-worker.ts';
import type { UnitWorker } from '../execution/unit-worker.ts';
import { scheduleNext, type NextRunDeps } from '../schedule/next-run.ts';
import type { Queue } from './queue.ts';
import { checkHandlers, unitJobId, type JobHandlers } from './registry.ts';

export interface JobHandlerDeps {
  runs: RunRepo;
  collections: CollectionRepo;
  queue: Queue;
  clock: () => Date;
  log: Logger;
  unitJobs: UnitJobRepo;
  runWorker: Pick<RunWorker, 'runOnce'>;
  unitWorker: Pick<UnitWorker, 'run'>;
  /** After a run ends: its collection's next run (a follow-up, a re-run, a retry) becomes a job (schedule/next-run.ts). */
  next: NextRunDeps;
  enqueue(collectionId: string, trigger: RunTrigger): Promise<{ run: RunRow; created: boolean }>;
  /** The scheduler's safety-net pass (repairs, due schedules). */
  tick(): Promise<unknown>;
  claimableRunIds(limit: number): Promise<string[]>;
  /** jobs/index.ts handOff */
  runQueued(id: string): Promise<unknown>;
  runExport(exportId: string): Promise<unknown>;
}

export function jobHandlers(d: JobHandlerDeps): JobHandlers {
  return checkHandlers([
    [
      'custody.run',
      async ({ run_id }: { run_id: string }) => {
        const run = await d.runs.get(run_id);
        const outcome = await d.runWorker.runOnce(run_id);
        // a planner fanned the run out: each unit not ended yet becomes a job
        if (outcome.status === 'fanned_out') {
          for (const u of await d.unitJobs.list(run_id))
            if (u.status === 'queued') await d.runQueued(unitJobId(run_id, u.unit_key));
          return;
        }
        if (run && outcome.status !== 'not_claimed' && outcome.status !== 'interrupted')
          await scheduleNext(d.next, run.collection_id);
      },
    ],
    [
      'custody.unit',
      async ({ run_id, unit_key }: { run_id: string; unit_key: string }) => {
        await d.unitWorker.run(run_id, unit_key);
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
