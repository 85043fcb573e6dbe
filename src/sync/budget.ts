// Per-credential request budget: a token bucket (rate + burst), a concurrency cap and a pause switch.
// A 429 means the provider wants *every* request made with that credential to stop, so pause() blocks the
// whole queue, not only the request that was refused. Waiters are served strictly first come, first served.

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
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      cancel();
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
  /** Bucket size: how many units may be spent at once after an idle period. */
  burst: number;
  /** Requests in flight at the same time. */
  concurrency: number;
}

export interface BudgetState {
  tokens: number;
  inFlight: number;
  queued: number;
  pausedUntil: number;
}

export type Release = () => void;

interface Waiter {
  cost: number;
  resolve: (release: Release) => void;
  reject: (reason: unknown) => void;
  detach: () => void;
}

export class RequestBudget {
  readonly config: BudgetConfig;
  private readonly clock: Clock;
  private tokens: number;
  private refilledAt: number;
  private inFlight = 0;
  private pausedUntil = 0;
  private readonly queue: Waiter[] = [];
  private wake: { at: number; cancel: () => void } | undefined;

  constructor(config: BudgetConfig, clock: Clock = systemClock) {
    if (!(config.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be > 0');
    if (!(config.burst >= 1)) throw new RangeError('burst must be >= 1');
    if (!(config.concurrency >= 1)) throw new RangeError('concurrency must be >= 1');
    this.config = { ...config };
    this.clock = clock;
    this.tokens = config.burst;
    this.refilledAt = clock.now();
  }

  /**
   * Waits for a concurrency slot, `cost` tokens and the end of any pause, in arrival order.
   * Resolves to a release function (idempotent) that frees the concurrency slot.
   */
  acquire(cost = 1, signal?: AbortSignal): Promise<Release> {
    if (!(cost >= 0)) return Promise.reject(new RangeError('cost must be >= 0'));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { cost, resolve, reject, detach: () => {} };
      if (signal) {
        const onAbort = () => {
          const i = this.queue.indexOf(waiter);
          if (i === -1) return;
          this.queue.splice(i, 1);
          reject(abortReason(signal));
          // The aborted waiter may have been the head blocking everyone behind it.
          this.pump();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiter.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(waiter);
      this.pump();
    });
  }

  /** Blocks every acquire until the given epoch milliseconds. A later pause extends, an earlier one is ignored. */
  pause(untilEpochMs: number): void {
    if (untilEpochMs <= this.pausedUntil) return;
    this.pausedUntil = untilEpochMs;
    this.pump();
  }

  state(): BudgetState {
    this.refill();
    return { tokens: this.tokens, inFlight: this.inFlight, queued: this.queue.length, pausedUntil: this.pausedUntil };
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = now - this.refilledAt;
    if (elapsed > 0) {
      this.tokens = Math.min(this.config.burst, this.tokens + (elapsed * this.config.ratePerSecond) / 1000);
      this.refilledAt = now;
    }
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const now = this.clock.now();
      if (now < this.pausedUntil) return this.scheduleWake(this.pausedUntil);
      // A release will pump again.
      if (this.inFlight >= this.config.concurrency) return this.cancelWake();
      this.refill();
      const head = this.queue[0];
      // A cost larger than the bucket could never be met; it waits for a full bucket and runs into debt instead.
      const needed = Math.min(head.cost, this.config.burst);
      if (this.tokens < needed) {
        const waitMs = ((needed - this.tokens) * 1000) / this.config.ratePerSecond;
        return this.scheduleWake(now + Math.ceil(waitMs));
      }
      this.queue.shift();
      head.detach();
      this.tokens -= head.cost;
      this.inFlight += 1;
      head.resolve(this.releaser());
    }
    this.cancelWake();
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      this.pump();
    };
  }

  private scheduleWake(at: number): void {
    if (this.wake?.at === at) return;
    this.cancelWake();
    const cancel = this.clock.timer(at - this.clock.now(), () => {
      this.wake = undefined;
      this.pump();
    });
    this.wake = { at, cancel };
  }

  private cancelWake(): void {
    this.wake?.cancel();
    this.wake = undefined;
  }
}

/** One budget per credential key (e.g. `zoom:<account>` or `graph:<tenant>`), shared by every request using it. */
export class BudgetRegistry {
  private readonly budgets = new Map<string, RequestBudget>();

  constructor(private readonly clock: Clock = systemClock) {}

  /** The config is used when the key is first seen; later calls get the existing budget unchanged. */
  get(key: string, config: BudgetConfig): RequestBudget {
    let budget = this.budgets.get(key);
    if (!budget) {
      budget = new RequestBudget(config, this.clock);
      this.budgets.set(key, budget);
    }
    return budget;
  }

  delete(key: string): void {
    this.budgets.delete(key);
  }
}
