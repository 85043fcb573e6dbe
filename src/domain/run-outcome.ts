/**
 * How a run ends, decided once from what its units left (the run's counters and its reconciliation), whether the
 * run was one unit collected in place, a plan with no unit, or the fan-in of many units. Pure: the engine reads
 * the tally, asks here, and writes what it is told.
 */

/** Backoff of a collection whose runs fail: waits double from `baseMs` up to `maxMs`; `maxFailures` give up. */
export interface RunBackoff {
  /** Wait before the first automatic retry of a failed collection; doubles each time. */
  baseMs: number;
  maxMs: number;
  /** After this many failed runs in a row the collection goes to `error` (needs a person). */
  maxFailures: number;
}

export const DEFAULT_RUN_BACKOFF: RunBackoff = { baseMs: 60_000, maxMs: 60 * 60_000, maxFailures: 8 };

/** After the `failures`-th failed run in a row: retried after `waitMs`, or given up (`error`, a person must act). */
export function backoffAfter(
  policy: RunBackoff,
  failures: number,
): { giveUp: true } | { giveUp: false; waitMs: number } {
  if (failures >= policy.maxFailures) return { giveUp: true };
  return { giveUp: false, waitMs: Math.min(policy.maxMs, policy.baseMs * 2 ** (failures - 1)) };
}

/** What a run's units left when the last of them ended. */
export interface RunTally {
  /** the run's counters: pieces kept (collected, unchanged, skipped) and pieces that failed */
  collected: number;
  unchanged: number;
  skipped: number;
  failed: number;
  /** failed pieces in the run's reconciliation: its units' failures plus the pieces no unit reached */
  reconciledFailures: number;
  /** units that failed as a whole (each one failed piece of its custodian) */
  failedUnits: number;
  /** the reason of the first unit that needs a person to act, if one does */
  needsAction?: string;
}

export type RunVerdict =
  /** `failed`: the count of failed pieces, for the collection's status_reason */
  | { status: 'succeeded' | 'completed_with_errors'; failed: number }
  /** a unit needs a person (the run ends `error`) */
  | { status: 'needs_action'; reason: string }
  /** every selected piece failed: the run ends `failed` and is retried with backoff */
  | { status: 'nothing_collected'; reason: string };

export function decideRunOutcome(t: RunTally): RunVerdict {
  if (t.needsAction !== undefined) return { status: 'needs_action', reason: t.needsAction };
  if (t.failed > 0 && t.collected + t.unchanged + t.skipped === 0) {
    const n = t.failed;
    return {
      status: 'nothing_collected',
      reason: `nothing could be collected: ${n} selected ${n === 1 ? 'piece' : 'pieces'} failed; see the run's reconciliation`,
    };
  }
  const failed = Math.max(t.failed, t.reconciledFailures, t.failedUnits);
  return { status: failed > 0 ? 'completed_with_errors' : 'succeeded', failed };
}
