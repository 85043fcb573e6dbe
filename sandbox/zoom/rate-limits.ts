import { performance } from 'node:perf_hooks';

// Zoom meters requests per account (shared by every app) in categories, per second, plus a daily cap.

export type RateCategory = 'Light' | 'Medium' | 'Heavy';

export interface RateLimitOptions {
  /** Requests per second per category (Business+: 80 / 60 / 40). */
  light?: number;
  medium?: number;
  heavy?: number;
  /** Requests per second across every category together (an account-wide window; benchmarks of a budget-bound run). */
  total?: number;
  /** Requests per UTC day across every API request of the account (Zoom caps Heavy+RI combined at 60 000/day on Business+; the sandbox's endpoints are Light/Medium, so one cap stands in). */
  daily?: number;
}

export type RateVerdict =
  | { limited: false }
  | { limited: true; type: 'QPS'; limit: number }
  | { limited: true; type: 'Daily-limit'; limit: number; retryAt: string };

const GENEROUS = 1000;

export class RateLimiter {
  private readonly windows = new Map<RateCategory | 'Total', number[]>();
  /** Requests answered 429 for a per-second limit so far. */
  refused = 0;
  private day = '';
  private dayCount = 0;

  constructor(
    private readonly limits: RateLimitOptions,
    private readonly now: () => Date,
  ) {}

  admit(category: RateCategory): RateVerdict {
    const dailyLimit = this.limits.daily ?? Infinity;
    const today = this.now().toISOString().slice(0, 10);
    if (today !== this.day) {
      this.day = today;
      this.dayCount = 0;
    }
    if (this.dayCount >= dailyLimit)
      return { limited: true, type: 'Daily-limit', limit: dailyLimit, retryAt: nextUtcMidnight(this.now()) };
    const t = performance.now();
    const windows = [
      this.window(category, t, this.qps(category)),
      this.window('Total', t, this.limits.total ?? Infinity),
    ];
    const full = windows.find((w) => w.times.length >= w.limit);
    if (full) {
      this.refused += 1;
      return { limited: true, type: 'QPS', limit: full.limit };
    }
    for (const w of windows) w.times.push(t);
    this.dayCount += 1;
    return { limited: false };
  }

  /** The requests admitted in the second before `t` under one limit. */
  private window(key: RateCategory | 'Total', t: number, limit: number): { times: number[]; limit: number } {
    const times = this.windows.get(key) ?? [];
    this.windows.set(key, times);
    while (times.length > 0 && times[0] <= t - 1000) times.shift();
    return { times, limit };
  }

  /** The configured daily cap, or Business+'s 60 000 when none is set (shown in X-RateLimit-Limit). */
  dailyLimit(): number {
    return this.limits.daily ?? 60_000;
  }

  qps(category: RateCategory): number {
    const per = { Light: this.limits.light, Medium: this.limits.medium, Heavy: this.limits.heavy }[category];
    return Math.min(per ?? GENEROUS, this.limits.total ?? Infinity);
  }
}

export function nextUtcMidnight(now: Date): string {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return new Date(next).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Requests being answered at this moment (API calls and downloads, not OAuth): what a client keeps in flight, and
 * the most it kept at once since the last `resetPeak()`.
 */
export class InFlight {
  current = 0;
  peak = 0;

  enter(): void {
    this.current += 1;
    this.peak = Math.max(this.peak, this.current);
  }

  leave(): void {
    this.current = Math.max(0, this.current - 1);
  }

  resetPeak(): void {
    this.peak = this.current;
  }
}
