/**
 * What Custody tells the outside world about (fixed contract: names and fields). The event stream
 * (`GET /v1/collections/{id}/events`) and the outbound webhooks deliver these; `events` is their outbox.
 */
export interface EventData {
  'run.started': { run_id: string; collection_id: string };
  /**
   * Cumulative for that custodian (or channel id) in that run, in the reconciliation's categories (the same numbers
   * as its entry for the unit), plus `skipped` (seen twice by a resumed run; not in `listed`) and `bytes`.
   */
  'run.progress': {
    run_id: string;
    custodian: string;
    custodian_name: string | null;
    custodian_email: string | null;
    /** pending | running | done | failed | not_reached: `done` once the unit is finished (its bar is full) */
    status: string;
    listed: number;
    collected: number;
    unchanged: number;
    excluded: number;
    not_present: number;
    failed: number;
    skipped: number;
    bytes: number;
  };
  /** status: a run status (succeeded, completed_with_errors, failed, error, cancelled) */
  'run.finished': { run_id: string; collection_id: string; status: string };
  /** the collection needs user action (pair again, grant a scope) */
  'collection.error': { collection_id: string; reason: string };
  /**
   * issue 20: a pairing whose grant lacks scopes the collection's saved filters use (each scope and the feature it
   * serves), told right after pair_credentials instead of at the next PATCH or start
   */
  'collection.scopes_missing': { collection_id: string; missing_scopes: { scope: string; feature: string }[] };
  'hold.placed': { hold_id: string; collection_ids: string[]; workspace_id: string | null };
  'hold.released': { hold_id: string };
  /** an export's progress (issue 24): documents written so far, package bytes so far */
  'export.progress': { export_id: string; documents_done: number; documents_total: number; bytes: number };
  /** status: succeeded | failed | cancelled */
  'export.finished': { export_id: string; status: string };
}

export type EventType = keyof EventData;

export const EVENT_TYPES = [
  'run.started',
  'run.progress',
  'run.finished',
  'collection.error',
  'collection.scopes_missing',
  'hold.placed',
  'hold.released',
  'export.progress',
  'export.finished',
] as const satisfies readonly EventType[];

export interface CustodyEvent<T extends EventType = EventType> {
  seq: number;
  accountId: string;
  collectionId: string | null;
  runId: string | null;
  type: T;
  data: EventData[T];
  createdAt: string;
}
