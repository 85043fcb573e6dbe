// A provider's quota over a window longer than a second (Graph's SharePoint resource units: per app and tenant,
// a sliding minute). A per-second rate alone does not keep such a window: units spent fast before the quota was
// known (the rate starts above it, and Graph states the quota only once 80 % of it is spent) are still counted
// for the rest of the minute, and requests paced at the learned rate overrun it. So the units this process spends
// are reserved here before each request, and a request waits until the window has room for it.
import type { RateSignal } from './learned-rate.ts';

type Quota = Extract<RateSignal, { kind: 'quota' }>;

/** Kept while no quota is known yet: Graph's window, the longest this ledger needs to remember. */
const UNKNOWN_WINDOW_MS = 60_000;

/**
 * The bench's baseline only (bench/allowance.ts): windows are not kept, as before issue 25. Not a setting: nothing
 * else reads or writes it.
 */
export const windowBaseline = { ignored: false };

export class QuotaWindow {
  private readonly spent: { at: number; units: number }[] = [];
  private total = 0;
  private quota: { limit: number; ms: number } | null = null;

  /** `headroom`: the share of a stated quota this process may fill (the rest absorbs clock skew and jitter). */
  constructor(private readonly headroom = 0.95) {}

  /** The units a window may hold, once the provider stated one; null before. */
  get capacity(): number | null {
    return this.quota ? Math.floor(this.quota.limit * this.headroom) : null;
  }

  /**
   * What the provider said of its quota: the window and how much of it is left. Units it counted beyond this
   * ledger's (another process or app of the tenant, or spent before this one started) are taken as spent now.
   */
  learn(signal: Quota, now: number): void {
    this.quota = { limit: signal.limit, ms: signal.windowSeconds * 1000 };
    this.trim(now);
    const others = signal.limit - signal.remaining - this.total;
    if (others > 0) this.add(now, others);
  }

  /** `units` sent now (reserved before the request; a refused request counts at the provider too). */
  record(now: number, units: number): void {
    this.trim(now);
    if (units > 0) this.add(now, units);
  }

  /** How long until `units` more fit in the window (0: now, or no quota known). */
  wait(now: number, units: number): number {
    const capacity = this.capacity;
    if (capacity === null || windowBaseline.ignored) return 0;
    this.trim(now);
    let excess = this.total + Math.min(units, capacity) - capacity;
    if (excess <= 0) return 0;
    for (const entry of this.spent) {
      excess -= entry.units;
      if (excess <= 0) return entry.at + this.quota!.ms - now + 1;
    }
    return this.quota!.ms;
  }

  private add(at: number, units: number): void {
    this.spent.push({ at, units });
    this.total += units;
  }

  private trim(now: number): void {
    const ms = this.quota?.ms ?? UNKNOWN_WINDOW_MS;
    while (this.spent.length > 0 && this.spent[0].at <= now - ms) this.total -= this.spent.shift()!.units;
  }
}
