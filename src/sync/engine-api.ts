import type { Static } from 'typebox';
import type { RunSummarySchema } from '../read/view-schemas.ts';

/**
 * What the HTTP layer needs of the sync engine. The engine (src/sync/engine.ts) implements it; keeping the
 * surface this small keeps routes thin and the engine free of HTTP.
 */
export type RunSummary = Static<typeof RunSummarySchema>;

export interface EngineApi {
  /**
   * PATCH sync_status=pending: queue a run. A run already going keeps the filters it started with, and a queued
   * event run covers only some custodians: the sync asked for follows either (when it ends). A queued full run,
   * not yet started, takes the filters just saved.
   */
  queue(collectionId: string): Promise<void>;
  /** Begin (or return the active run), whatever the collection lacks: a run that cannot proceed ends `error`. */
  start(collectionId: string): Promise<{ runId: string; created: boolean }>;
  /**
   * POST start: refused (409 `not_ready`, `credentials`) when a person must act first (no filters, no paired
   * credentials, a permission the filters need); else as start, with the collection's status after it.
   */
  requestStart(collectionId: string): Promise<{ runId: string; created: boolean; syncStatus: string }>;
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
