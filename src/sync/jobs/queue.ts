import type { JobHandlers } from './registry.ts';

/**
 * Where jobs wait until a worker takes them. Only the queue differs between the embedded default (in this process)
 * and PostgreSQL (graphile-worker, any worker process): the engine and the job handlers are the same.
 */
export interface Queue {
  /** A run was queued (or must be resumed): have a worker execute it. */
  runQueued(runId: string): Promise<void>;
  /** A unit of a fanned-out run is queued (or must be taken over): have a worker execute it. */
  unitQueued(runId: string, unitKey: string): Promise<void>;
  /** An export is queued (or must be restarted): have a worker write it. */
  exportQueued(exportId: string): Promise<void>;
  /** The collection's next run is due at `at` (replaces an earlier schedule of it); null removes nothing. */
  scheduleCollection(collectionId: string, at: Date): Promise<void>;
  /** Starts taking jobs in this process (worker processes only). */
  startWorking(handlers: JobHandlers): Promise<void>;
  /** Stops taking jobs and waits for the ones in flight. */
  stop(): Promise<void>;
}

export interface QueueLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
