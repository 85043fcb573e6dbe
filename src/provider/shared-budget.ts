// One request budget per provider credential for the whole fleet. Every process asks the same backend (Redis,
// PostgreSQL, or this process on the embedded default), so N workers together stay within the credential's rate
// and concurrency instead of N times it. Time is cut into 100 ms slots; a slot admits its share of the rate and
// spaces its requests evenly, so no one-second window of the provider ever sees more than the rate. The rate is
// learned (learned-rate.ts) and kept per credential in provider_budgets, shared by every process.
import type { ProviderBudgetRepo } from '../store/provider-budgets.ts';
import { abortReason, askStore, sleep, systemClock, type BudgetConfig, type Clock, type Release } from './budget.ts';
import type { BudgetBackend } from './budget-backend.ts';
import { HeldLeases } from './budget-leases.ts';
import { CredentialPause } from './budget-pause.ts';
import { QuotaWindow } from './quota-window.ts';
import { RateUse } from './rate-use.ts';
import { SentWindow } from './sent-window.ts';
import {
  defaultLearnedRateConfig,
  learn,
  rateCap,
  rateSignalOf,
  startingRate,
  type LearnedRate,
  type LearnedRateConfig,
  type RateSignal,
} from './learned-rate.ts';

export const SLOT_MS = 100;
/** How often a process shares what it learned and reads what the others did. */
const SYNC_MS = 1000;

/** What the HTTP client tells the budget about a response. */
export interface ObservedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** How long the retry policy waits before the next attempt (Retry-After or backoff). */
  waitMs?: number;
}

/** The budget a request passes (ProviderHttp): acquire before sending, report what came back. */
export interface Budget {
  acquire(cost?: number, signal?: AbortSignal): Promise<Release>;
  /** Blocks every acquire with this credential, in every process, until the given epoch ms. */
  pause(untilEpochMs: number): void;
  observe?(response: ObservedResponse): void;
  /** The end of the credential's pause as this process knows it (epoch ms; 0 or past: none). */
  pausedUntil?(): number;
}

/** Requests slot `k` admits at `rate` per second: the integer shares add up to the rate over any ten slots. */
export function slotAllowance(rate: number, k: number): number {
  return slotStartIndex(rate, k + 1) - slotStartIndex(rate, k);
}

/** The sequence number of slot `k`'s first admission at `rate`. */
function slotStartIndex(rate: number, k: number): number {
  return Math.floor((rate * SLOT_MS * k) / 1000 + 1e-9);
}

export interface SharedBudgetOptions {
  backend: BudgetBackend;
  /** Where learned rates are kept across runs and shared (absent: learned in this process only). */
  rates?: ProviderBudgetRepo;
  clock?: Clock;
  /** false: the configured rate is used as is (tests of the fleet-wide limit). Default true. */
  learn?: boolean;
  onError?: (error: unknown) => void;
}

export class SharedBudget implements Budget {
  private state: LearnedRate;
  private readonly learning: LearnedRateConfig;
  private readonly clock: Clock;
  private loaded: Promise<void> | undefined;
  private isLoaded = false;
  private pendingClean = 0;
  private pendingSignals: RateSignal[] = [];
  private syncing: Promise<void> | undefined;
  private lastSync = 0;
  /** The credential's concurrency, as leases this process holds. */
  private readonly leases: HeldLeases;
  private lastSend = 0;
  private readonly sent = new SentWindow();
  /** What this process spent of a quota window the provider stated (Graph's resource-unit minute). */
  private readonly quota = new QuotaWindow();
  /** What the fleet used of the rate in the last second, as this process counted it. */
  private readonly use: RateUse;
  /** The credential's pause, shared by the fleet (budget-pause.ts). */
  private readonly paused: CredentialPause;

  constructor(
    readonly key: string,
    readonly ids: { provider: string; credential: string },
    readonly config: BudgetConfig,
    private readonly options: SharedBudgetOptions,
  ) {
    if (!(config.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be > 0');
    if (!(config.concurrency >= 1)) throw new RangeError('concurrency must be >= 1');
    this.clock = options.clock ?? systemClock;
    this.paused = new CredentialPause(key, options.backend, this.clock, options.onError);
    this.use = new RateUse(SLOT_MS, options.backend.kind !== 'memory');
    this.learning = defaultLearnedRateConfig(config.ratePerSecond, config.maxRatePerSecond, config.slowStart);
    this.state = startingRate(this.learning);
    const start = Math.min(config.startConcurrency ?? config.concurrency, config.concurrency);
    this.leases = new HeldLeases(
      key,
      { start: Math.max(1, start), max: config.concurrency },
      options.backend,
      this.clock,
      options.onError,
    );
  }

  /** The rate in force (requests or cost units per second). */
  get rate(): number {
    // A rate stored by a process without the operator's ceiling (or before it was set) is held to it here.
    return Math.min(
      this.options.learn === false ? this.config.ratePerSecond : this.state.rate,
      this.config.maxRatePerSecond ?? Infinity,
    );
  }

  async acquire(cost = 1, signal?: AbortSignal): Promise<Release> {
    if (!(cost >= 0)) throw new RangeError('cost must be >= 0');
    if (signal?.aborted) throw abortReason(signal);
    if (!this.isLoaded) await (this.loaded ??= this.load());
    await this.paused.wait(signal);
    const release = await this.leases.take(signal);
    // A request the provider does not meter (cost 0: a file download outside its API) holds a concurrency slot and
    // respects a pause, but takes none of the rate.
    if (cost === 0) return release;
    try {
      await this.slot(cost, signal);
      return release;
    } catch (error) {
      release();
      throw error;
    }
  }

  pause(untilEpochMs: number): void {
    this.paused.set(untilEpochMs);
  }

  observe(response: ObservedResponse): void {
    if (this.options.learn === false) return;
    const now = this.clock.now();
    const signal = rateSignalOf(response, now);
    // A refusal or a server error: fewer requests in flight (never fewer than the configured start).
    if (response.status >= 500 || signal?.kind === 'throttled') this.leases.allowance.narrow();
    if (!signal) return;
    if (signal.kind === 'quota') this.quota.learn(signal, now);
    let raises = true;
    if (signal.kind === 'clean') {
      const bound = this.use.bound(now, this.rate, 0.8);
      // Requests waited for a lease while the rate had room: the provider answers slowly, more may be in flight.
      this.leases.allowance.answered(!bound);
      // Past the connector's guess, a rate the service used less than four fifths of in the last second is not
      // raised by its clean answers: they say nothing of the rate unused, and the units taken on later would send at
      // it all at once (issue 25: a run at 300 ms answers learned 111/s while sending 31/s, then met 429s in a burst).
      raises = this.state.rate < this.learning.initial || bound;
    }
    if (raises) {
      this.state = learn(this.state, signal, this.learning, now);
      if (signal.kind === 'clean') this.pendingClean += signal.count;
      else this.pendingSignals.push(signal);
    }
    if (signal.kind !== 'clean' || now - this.lastSync >= SYNC_MS) void this.sync();
  }

  pausedUntil(): number {
    return this.paused.until;
  }

  /** The requests in flight this process allows itself now (BudgetConfig.startConcurrency). */
  get concurrency(): number {
    return this.leases.allowance.concurrency;
  }

  /**
   * Whether the credential has room for more requests than it is given now (unit-worker.ts takes on more units then):
   * its rate was not what held requests back in the last second (rate-use.ts), no request waited for a lease in it that
   * a wider allowance cannot give (lease-allowance.ts: at the most, four fifths of the rate used, or the fleet's cap
   * reached), and no pause holds.
   */
  hasRoom(share = 0.95): boolean {
    const now = this.clock.now();
    if (this.paused.until > now || this.leases.allowance.full(1000, !this.use.bound(now, this.rate, 0.8))) return false;
    return !this.use.bound(now, this.rate, share);
  }

  /** What this process knows of the learned state (the gauge and the run detail read it). */
  snapshot(): LearnedRate {
    return { ...this.state, rate: this.rate };
  }

  /** Stops renewing leases (the process is going away; leases in use lapse) and gives back the ones kept. */
  close(): Promise<void> {
    return this.leases.close();
  }

  private async load(): Promise<void> {
    try {
      await this.loadStored();
    } finally {
      this.isLoaded = true;
    }
  }

  private async loadStored(): Promise<void> {
    if (!this.options.rates || this.options.learn === false) return;
    try {
      const stored = await this.options.rates.get(this.key);
      if (stored)
        this.state = {
          ...stored,
          rate: Math.min(Math.max(stored.rate, this.learning.min), rateCap(stored, this.learning, this.clock.now())),
        };
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /** Shares clean counts and throttling with the other processes and takes the merged state back. */
  private sync(): Promise<void> {
    if (this.syncing) return this.syncing;
    const repo = this.options.rates;
    if (!repo) return Promise.resolve();
    this.lastSync = this.clock.now();
    const clean = this.pendingClean;
    const signals = this.pendingSignals;
    this.pendingClean = 0;
    this.pendingSignals = [];
    const now = this.clock.now();
    this.syncing = repo
      .update({ key: this.key, ...this.ids }, startingRate(this.learning), (stored) => {
        let s = stored;
        if (clean > 0) s = learn(s, { kind: 'clean', count: clean }, this.learning, now);
        for (const signal of signals) s = learn(s, signal, this.learning, now);
        return s;
      })
      .then((merged) => {
        this.state = merged;
      })
      .catch((error) => this.options.onError?.(error))
      .finally(() => {
        this.syncing = undefined;
      });
    return this.syncing;
  }

  private async slot(cost: number, signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      // A stated quota window without room for this request: no slot is taken until it has.
      const full = this.quota.wait(this.clock.now(), cost);
      if (full > 0) {
        await sleep(this.clock, full, signal);
        continue;
      }
      const rate = this.rate;
      const now = this.clock.now();
      const k = Math.floor(now / SLOT_MS);
      const allowance = slotAllowance(rate, k);
      if (allowance > 0) {
        const total = await askStore(
          this.clock,
          () => this.options.backend.count(`${this.key}:${k}`, cost, 60),
          signal,
          this.options.onError,
        );
        const before = total - cost;
        this.use.counted(k, total, cost, allowance, now);
        if (before < allowance) {
          // Admission n of the whole sequence goes at n/rate seconds: requests leave evenly spaced across slots,
          // so a provider counting any sliding second sees the rate, not a slot's burst.
          // This process also keeps its own requests one interval apart: a timer that fires late (a busy event
          // loop) must not send two at once.
          const at = Math.max(
            Math.floor(((slotStartIndex(rate, k) + before) * 1000) / rate),
            this.lastSend + 1000 / rate,
          );
          // Reserved now: concurrent acquirers space themselves after it; given back if this one does not go.
          const previous = this.lastSend;
          this.lastSend = at;
          const unreserve = () => {
            if (this.lastSend === at) this.lastSend = previous;
          };
          // A 429 seen anywhere while this request waited for its slot stops it too; after the pause it takes a new
          // slot, or every request held back would leave at once when the pause ends. The shared pause is read while
          // the request waits for its time: read after it, the request left a round trip late, in a later slot's
          // or second's share.
          const shared = this.paused.shared();
          shared.catch(() => {}); // awaited below; not unhandled if the sleep is aborted first
          let woke: number;
          let pausedUntil: number;
          try {
            await sleep(this.clock, at - this.clock.now(), signal);
            pausedUntil = await this.paused.current(signal, shared);
            woke = this.clock.now();
            // Timers fire late on a busy event loop, and the requests due after a late one would follow it at
            // once: never more than the rate leaves this process in any one second, as sent, nor in a window a
            // little longer (sent-window.ts: bunched requests would arrive less than a second apart). The rate in
            // force now: a 429 that lowered it while this request waited holds it too.
            for (let wait = this.sent.wait(this.clock.now(), this.rate, cost); wait > 0;) {
              await sleep(this.clock, wait, signal);
              wait = this.sent.wait(this.clock.now(), this.rate, cost);
            }
          } catch (error) {
            unreserve();
            throw error;
          }
          if (pausedUntil > this.clock.now()) {
            unreserve();
            await this.paused.wait(signal);
            continue;
          }
          // Woke long after its time (a stalled event loop, a slow store): going now would bunch with the next
          // slots' requests, so take a new one. Measured when it woke: a wait for room in this process's own sent
          // window is spacing, not lateness (giving the slot up for it lost up to a fifth of a low rate). Late is
          // measured from the time this request was given, not from its slot: below 10 per second the spacing alone
          // puts that time beyond the next slot, and measuring from the slot refused every such admission while its
          // reservation pushed the next one further out, so requests stopped leaving altogether (issue 19).
          // Shared by processes (Redis, PostgreSQL): sent in the second its slot belongs to, or not at all. The
          // slots of one second admit the rate between them, and a request carried into the next second (a slow
          // store's answer, a late timer, spacing) is one more than that second's share, which no process's own sent
          // window sees (issue 25: 21 in a second of a rate of 20, two processes on a loaded PostgreSQL). This
          // process alone (the embedded default) keeps the sent window's bound instead: retaking there cost 7 % of a
          // rate of 9.5 a second with timers up to 100 ms late.
          // Another request of this process filled the quota window meanwhile: wait for room again.
          if (
            woke >= Math.max(at, (k + 1) * SLOT_MS) + SLOT_MS ||
            (this.options.backend.kind !== 'memory' &&
              Math.floor(this.clock.now() / 1000) !== Math.floor((k * SLOT_MS) / 1000)) ||
            this.quota.wait(this.clock.now(), cost) > 0
          ) {
            unreserve();
            continue;
          }
          // Late by up to half an interval is not carried over to the requests after it: on a busy event loop every
          // timer is a little late, and spacing each request from the late one before it summed those delays into a
          // rate well below the learned one (issue 25). Later than that, the next keeps half an interval away.
          this.lastSend = Math.max(this.lastSend, this.clock.now() - 500 / rate);
          this.sent.record(this.clock.now(), cost);
          this.quota.record(this.clock.now(), cost);
          return;
        }
      }
      await sleep(this.clock, (k + 1) * SLOT_MS - this.clock.now(), signal);
    }
  }
}
