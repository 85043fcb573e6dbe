import { createGraphileQueue } from './graphile.ts';
import { createInProcessQueue } from './in-process.ts';
import type { Queue, QueueLog } from './queue.ts';

export type QueueSpec =
  | {
      kind: 'in-process';
      concurrency: number;
      sweepMs: number;
      pollMs?: number;
      claimable(limit: number): Promise<string[]>;
      log: QueueLog;
    }
  | { kind: 'graphile'; connectionString: string; schema: string; concurrency: number; sweepMs: number; log: QueueLog };

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
