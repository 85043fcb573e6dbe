/**
 * The collection sync lifecycle, written down once. Status names come from the original product:
 * created (no filters saved yet), pending (queued), syncing, synced, failed (transient, retried automatically)
 * and error (needs user action, e.g. pair again). Clients may only write `pending`.
 */
export const SYNC_STATUSES = ['created', 'pending', 'syncing', 'synced', 'failed', 'error'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

export type SyncEvent =
  | 'queue' //     PATCH sync_status=pending (filters saved)
  | 'start' //     POST start, or a worker picking up a queued run
  | 'complete' //  the run finished
  | 'fail' //      transient failure: retried with backoff
  | 'error' //     needs user action
  | 'retry' //     the scheduler re-queues a failed collection
  | 'schedule' //  auto/arch re-run after the interval
  | 'cancel'; //   a person cancels the active run (the collection must be started again)

export const TRANSITIONS: Record<SyncStatus, Partial<Record<SyncEvent, SyncStatus>>> = {
  created: { queue: 'pending' },
  pending: { queue: 'pending', start: 'syncing', cancel: 'error' },
  syncing: { complete: 'synced', fail: 'failed', error: 'error', cancel: 'error' },
  synced: { queue: 'pending', start: 'syncing', schedule: 'pending' },
  failed: { queue: 'pending', start: 'syncing', retry: 'pending' },
  error: { queue: 'pending', start: 'syncing' },
};

export function nextStatus(from: SyncStatus, event: SyncEvent): SyncStatus | undefined {
  return TRANSITIONS[from]?.[event];
}

/**
 * The move `event` makes, derived from the table: the statuses it may start from and the one it leads to (each
 * event leads to one status). The store's compare-and-swap takes both from here (CollectionRepo.transition).
 */
export function syncMove(event: SyncEvent): { from: SyncStatus[]; to: SyncStatus } {
  const from = SYNC_STATUSES.filter((s) => TRANSITIONS[s][event] !== undefined);
  const to = new Set(from.map((s) => TRANSITIONS[s][event]!));
  if (to.size !== 1) throw new Error(`the event "${event}" must lead to one status`);
  return { from, to: [...to][0] };
}

export const TYPE_SYNCS = ['one', 'arch', 'auto'] as const;
export type TypeSync = (typeof TYPE_SYNCS)[number];
