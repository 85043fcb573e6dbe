import type { Static } from 'typebox';
import type { RunSummarySchema } from './view-schemas.ts';

/**
 * What the HTTP layer needs of the sync engine. The engine (src/sync/engine.ts) implements it; keeping the
 * surface this small keeps routes thin and the engine free of HTTP.
 */
export type RunSummary = Static<typeof RunSummarySchema>;

export interface EngineApi {
  /** PATCH sync_status=pending: queue a run (no-op if one is active). */
  queue(collectionId: string): Promise<void>;
  /** POST start: begin (or return the active run). */
  start(collectionId: string): Promise<{ runId: string; created: boolean }>;
  /** Stops an active run and waits until it no longer writes. */
  cancel(collectionId: string): Promise<void>;
  /** Deletes items, runs, cursors and every blob no other collection references. */
  purgeCollection(collectionId: string): Promise<void>;
  latestRun(collectionId: string): Promise<RunSummary | null>;
  /** An export row was queued: have a worker write its package. */
  exportQueued(exportId: string): Promise<void>;
  /** An export was cancelled: stop writing it in this process now (other processes notice at their heartbeat). */
  exportCancelled(exportId: string): Promise<void>;
}
