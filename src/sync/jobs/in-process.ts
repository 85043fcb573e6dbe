import { createInProcessRunExecutor, type RunExecutor } from './run-executor.ts';
import { parseExportJobId, parseUnitJobId, type JobHandlers } from './registry.ts';
import type { Queue, QueueLog } from './queue.ts';

export interface InProcessQueueOptions {
  concurrency: number;
  sweepMs: number;
  /** Executor poll interval (runs queued by another process sharing the database). */
  pollMs?: number;
  /** Runs and unit jobs (registry.ts unitJobId) this process may take now (queued, lease expired, owner dead). */
  claimable(limit: number): Promise<string[]>;
  log: QueueLog;
}

/**
 * The embedded default: runs execute in this process, at most `concurrency` at a time; schedules are found by the
 * periodic sweep (the database holds next_sync_at, so a restart loses none).
 */
export function createInProcessQueue(opts: InProcessQueueOptions): Queue {
  let executor: RunExecutor | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  return {
    async runQueued() {
      executor?.kick();
    },
    async unitQueued() {
      executor?.kick();
    },
    async exportQueued() {
      executor?.kick();
    },
    async scheduleCollection() {
      // the sweep reads next_sync_at
    },
    async startWorking(handlers: JobHandlers) {
      if (executor) return;
      executor = createInProcessRunExecutor({
        source: { claimableRunIds: opts.claimable, runOnce: (id) => runJob(handlers, id) },
        concurrency: opts.concurrency,
        pollMs: opts.pollMs,
        log: opts.log,
      });
      executor.start();
      sweeper = setInterval(() => {
        if (sweeping) return;
        sweeping = handlers['custody.sweep']({})
          .catch((err: unknown) => opts.log.error({ err }, 'sweep failed'))
          .finally(() => (sweeping = undefined));
      }, opts.sweepMs);
      sweeper.unref();
    },
    async stop() {
      if (sweeper) clearInterval(sweeper);
      sweeper = undefined;
      // the executor first: work its stopping workers give back must not be taken up again meanwhile
      const stopping = executor?.stop();
      await sweeping;
      await stopping;
      executor = undefined;
    },
  };
}

/** A job id of the executor: a run id, a unit job's id, or an export job's id. */
function runJob(handlers: JobHandlers, id: string): Promise<void> {
  const exportId = parseExportJobId(id);
  if (exportId) return handlers['custody.export']({ export_id: exportId });
  const unit = parseUnitJobId(id);
  return unit ? handlers['custody.unit'](unit) : handlers['custody.run']({ run_id: id });
}
