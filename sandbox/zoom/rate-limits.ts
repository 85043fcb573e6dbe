import { performance } from 'node:perf_hooks';

// Zoom meters requests per account (shared by every app) in categories, per second, plus a daily cap.

export type RateCategory = 'Light' | 'Medium' | 'Heavy';

export interface RateLimitOptions {
  /** Requests per second per category (Business+: 80 / 60 / 40). */
  light?: number;
  medium?: number;
  heavy?: number;
  /** Requests per UTC day across every API request of the account (Zoom caps Heavy+RI combined at 60 000/day on Business+; the sandbox's endpoints are Light/Medium, so one cap stands in). */
  daily?: number;
}

export type RateVerdict =
  | { limited: false }
  | { limited: true; type: 'QPS'; limit: number }
  | { limited: true; type: 'Daily-limit'; limit: number; retryAt: string };

const GENEROUS = 1000;

export class RateLimiter {
  private readonly windows = new Map<RateCategory, number[]>();
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
    const limit = this.qps(category);
    const t = performance.now();
    const window = this.windows.get(category) ?? [];
    while (window.length > 0 && window[0] <= t - 1000) window.shift();
    if (window.length >= limit) return { limited: true, type: 'QPS', limit };
    window.push(t);
    this.windows.set(category, window);
    this.dayCount += 1;
    return { limited: false };
  }

  /** The configured daily cap, or Business+'s 60 000 when none is set (shown in X-RateLimit-Limit). */
  dailyLimit(): number {
    return this.limits.daily ?? 60_000;
  }

  qps(category: RateCategory): number {
    const per = { Light: this.limits.light, Medium: this.limits.medium, Heavy: this.limits.heavy }[category];
    return per ?? GENEROUS;
  }
}

export function nextUtcMidnight(now: Date): string {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return new Date(next).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
