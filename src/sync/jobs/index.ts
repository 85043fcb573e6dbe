import { createGraphileQueue, type GraphileQueueOptions } from './graphile.ts';
import { createInProcessQueue } from './in-process.ts';
import type { Queue, QueueLog } from './queue.ts';
import { parseExportJobId, parseUnitJobId } from './registry.ts';

export type QueueSpec =
  | {
      kind: 'in-process';
      concurrency: number;
      sweepMs: number;
      pollMs?: number;
      claimable(limit: number): Promise<string[]>;
      log: QueueLog;
    }
  | ({ kind: 'graphile' } & GraphileQueueOptions);

/** The one place a queue is picked. */
export function createQueue(spec: QueueSpec): Queue {
  switch (spec.kind) {
    case 'in-process':
      return createInProcessQueue(spec);
    case 'graphile':
      return createGraphileQueue(spec);
    default: {
      const never: never = spec;
      throw new Error(`unknown queue ${(never as { kind: string }).kind}`);
    }
  }
}
export type { Queue } from './queue.ts';
export {
  checkHandlers,
  exportJobId,
  JOB_NAMES,
  JobRegistryError,
  parseExportJobId,
  parseUnitJobId,
  unitJobId,
  type JobHandlers,
} from './registry.ts';

/**
 * Hands a job named by one string (a run id, registry.ts unitJobId or exportJobId) to the queue; when that fails
 * the sweep finds it (it is in the database) and hands it again.
 */
export function handOff(queue: Queue, log: QueueLog): (id: string) => Promise<void> {
  return (id) => {
    const unit = parseUnitJobId(id);
    const exportId = parseExportJobId(id);
    return (
      exportId
        ? queue.exportQueued(exportId)
        : unit
          ? queue.unitQueued(unit.run_id, unit.unit_key)
          : queue.runQueued(id)
    ).catch((err: unknown) => log.warn({ err, job: id }, 'could not hand the job to the job queue'));
  };
}
