/**
 * The run lifecycle, written down once (as sync-state.ts does for collections). A run is queued, claimed by one
 * worker (running; a lapsed lease lets another claim it again), and ends once: succeeded, completed_with_errors
 * (finished, but some selected pieces could not be collected: they stay on their unit's retry list), failed
 * (nothing could be collected, or a run-level failure; retried by a later run), error (needs a person) or
 * cancelled. These names are a fixed contract. The store's compare-and-swap updates take their `from`
 * statuses from this table, so a transition the table does not allow can never be written.
 */
/** A fixed contract: `completed_with_errors` = finished, but some selected pieces could not be collected. */
export const RUN_STATUSES = [
  'queued',
  'running',
  'succeeded',
  'completed_with_errors',
  'failed',
  'error',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const ACTIVE_RUN_STATUSES = ['queued', 'running'] as const satisfies readonly RunStatus[];
export type FinalRunStatus = Exclude<RunStatus, (typeof ACTIVE_RUN_STATUSES)[number]>;

export type RunEvent =
  | 'claim' //     a worker takes a queued run, or a running one whose lease lapsed or whose owner died
  | 'finish' //    its owner ends it (succeeded, failed, error; cancelled when its collection is gone)
  | 'cancel'; //   a person cancels or deletes the collection

export const RUN_TRANSITIONS: Record<RunEvent, { from: readonly RunStatus[]; to: readonly RunStatus[] }> = {
  claim: { from: ['queued', 'running'], to: ['running'] },
  finish: { from: ['running'], to: ['succeeded', 'completed_with_errors', 'failed', 'error', 'cancelled'] },
  cancel: { from: ['queued', 'running'], to: ['cancelled'] },
};

/** The statuses a run may be in for `event` to move it to `to`; throws on a transition the table does not have. */
export function runStatusesBefore(event: RunEvent, to: RunStatus): RunStatus[] {
  const t = RUN_TRANSITIONS[event];
  if (!t.to.includes(to)) throw new Error(`a run cannot ${event} to "${to}"`);
  return [...t.from];
}
