const WINDOW_MS = 60_000;

export type ChargeResult =
  { ok: true; limit: number; remaining: number; resetSeconds: number } | { ok: false; retryAfterSeconds: number };

/**
 * SharePoint-style resource-unit budget: per app per tenant, sliding one-minute window.
 * Throttled requests still count against the limit (Graph's throttling guidance): Retry-After says when a request
 * of the same cost fits again, and one sent before that is refused and pushes it further.
 */
export class ResourceUnitBudget {
  readonly #spent = new Map<string, Array<{ at: number; units: number }>>();
  /** Units charged to admitted requests, and requests refused, so far (every key). */
  charged = 0;
  refused = 0;

  constructor(readonly unitsPerMinute: number) {}

  charge(key: string, units: number, nowMs: number): ChargeResult {
    const entries = (this.#spent.get(key) ?? []).filter((e) => e.at > nowMs - WINDOW_MS);
    this.#spent.set(key, entries);
    let used = entries.reduce((sum, e) => sum + e.units, 0);
    if (used + units > this.unitsPerMinute) {
      this.refused += 1;
      entries.push({ at: nowMs, units });
      used += units;
      let freed = used + units - this.unitsPerMinute;
      let until = nowMs;
      for (const entry of entries) {
        until = entry.at + WINDOW_MS;
        freed -= entry.units;
        if (freed <= 0) break;
      }
      return { ok: false, retryAfterSeconds: Math.max(0.001, (until - nowMs) / 1000) };
    }
    entries.push({ at: nowMs, units });
    used += units;
    this.charged += units;
    const resetSeconds = entries.length > 0 ? Math.max(0, Math.ceil((entries[0].at + WINDOW_MS - nowMs) / 1000)) : 0;
    return { ok: true, limit: this.unitsPerMinute, remaining: this.unitsPerMinute - used, resetSeconds };
  }
}

/** Retry-After as Graph sends it: seconds, fractional when not whole (e.g. "2.128"). */
export function formatRetryAfter(seconds: number): string {
  return String(Math.round(seconds * 1000) / 1000);
}
