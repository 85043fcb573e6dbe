const WINDOW_MS = 60_000;

export type ChargeResult =
  { ok: true; limit: number; remaining: number; resetSeconds: number } | { ok: false; retryAfterSeconds: number };

/**
 * SharePoint-style resource-unit budget: per app per tenant, sliding one-minute window.
 * Throttled requests still count against the limit (Graph's throttling guidance): Retry-After says when a request
 * of the same cost fits again, and one sent before that is refused and pushes it further.
 */
export class ResourceUnitBudget {
  /** Per key: its charges in time order from `head` on, and their sum (a busy minute is tens of thousands). */
  readonly #spent = new Map<string, { entries: Array<{ at: number; units: number }>; head: number; used: number }>();
  /** Units charged to admitted requests, and requests refused, so far (every key). */
  charged = 0;
  refused = 0;

  constructor(readonly unitsPerMinute: number) {}

  charge(key: string, units: number, nowMs: number): ChargeResult {
    let window = this.#spent.get(key);
    if (!window) this.#spent.set(key, (window = { entries: [], head: 0, used: 0 }));
    const { entries } = window;
    while (window.head < entries.length && entries[window.head].at <= nowMs - WINDOW_MS)
      window.used -= entries[window.head++].units;
    if (window.head > 1024 && window.head * 2 > entries.length) {
      entries.splice(0, window.head);
      window.head = 0;
    }
    entries.push({ at: nowMs, units });
    window.used += units;
    if (window.used > this.unitsPerMinute) {
      this.refused += 1;
      let freed = window.used + units - this.unitsPerMinute;
      let until = nowMs;
      for (let i = window.head; i < entries.length; i++) {
        until = entries[i].at + WINDOW_MS;
        freed -= entries[i].units;
        if (freed <= 0) break;
      }
      return { ok: false, retryAfterSeconds: Math.max(0.001, (until - nowMs) / 1000) };
    }
    this.charged += units;
    const resetSeconds = Math.max(0, Math.ceil((entries[window.head].at + WINDOW_MS - nowMs) / 1000));
    return { ok: true, limit: this.unitsPerMinute, remaining: this.unitsPerMinute - window.used, resetSeconds };
  }
}

/** Retry-After as Graph sends it: seconds, fractional when not whole (e.g. "2.128"). */
export function formatRetryAfter(seconds: number): string {
  return String(Math.round(seconds * 1000) / 1000);
}
