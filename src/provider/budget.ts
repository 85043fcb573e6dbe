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
  /** Requests in flight at the same time, at most. */
  concurrency: number;
  /**
   * The requests in flight allowed at first, when less than `concurrency`: the allowance rises towards `concurrency`
   * while requests wait for a slot and the rate has room (a provider answering slowly), and falls back towards this
   * on a refusal or a server error (budget-leases.ts). Unset: `concurrency`, fixed.
   */
  startConcurrency?: number;
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

/** `work`, or the signal's reason as soon as it aborts; the work goes on for whoever else awaits it. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an abort rejects with the signal's reason
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an abort rejects with the signal's reason
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** How often, and how far apart, a question to a shared budget store is asked again after it failed. */
const STORE_TRIES = 10;
const STORE_RETRY_MS = 250;

/**
 * A question to a shared budget store (Redis, PostgreSQL), asked again while the store fails (a dropped connection, a
 * failover) for up to STORE_TRIES times: a blip holds back the requests that asked in it instead of failing each
 * of them (a batched question fails every request it carried). An outage lasting longer fails them as before.
 */
export async function askStore<T>(
  clock: Clock,
  ask: () => Promise<T>,
  signal: AbortSignal | undefined,
  onError?: (error: unknown) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ask();
    } catch (error) {
      if (signal?.aborted || attempt >= STORE_TRIES) throw error;
      onError?.(error);
      await sleep(clock, STORE_RETRY_MS, signal);
    }
  }
}
