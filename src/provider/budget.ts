// The clock and the vocabulary of provider budgets (shared-budget.ts implements them).

export interface Clock {
  now(): number;
  /** Runs fn after ms; returns a cancel function. */
  timer(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  timer(ms, fn) {
    const handle = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(handle);
  },
};

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Resolves after ms on the given clock; rejects with the signal's reason on abort. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an abort rejects with the signal's reason, whatever it is
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      cancel();
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an abort rejects with the signal's reason
      reject(abortReason(signal!));
    };
    const cancel = clock.timer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface BudgetConfig {
  /** Sustained requests (or cost units) per second. */
  ratePerSecond: number;
  /** Requests in flight at the same time. */
  concurrency: number;
  /**
   * The operator's ceiling (ZOOM_MAX_REQUESTS_PER_SECOND, MS_MAX_RESOURCE_UNITS_PER_SECOND): the learned rate never
   * goes above it, whatever the provider allows. Unset: no ceiling of the operator's.
   */
  maxRatePerSecond?: number;
  /**
   * The rate is a connector's guess at an unknown plan, not the operator's: learning starts below it and rises
   * fast until the provider states its limit (learned-rate.ts, slow start).
   */
  slowStart?: boolean;
}

export type Release = () => void;
