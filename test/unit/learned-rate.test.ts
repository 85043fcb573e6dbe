import { describe, expect, it } from 'vitest';
import { defaultLearnedRateConfig, learn, rateSignalOf, startingRate, type LearnedRate } from '../../src/provider/learned-rate.ts';

const config = defaultLearnedRateConfig(48); // Zoom's default budget: +2.4/s per clean second, x0.7 on a 429
const T = 1_700_000_000_000;

function cleanFor(state: LearnedRate, seconds: number, now = T): LearnedRate {
  let s = state;
  // One second of traffic at the rate in force, a request at a time.
  for (let i = 0; i < seconds; i++) {
    const n = Math.round(s.rate);
    for (let k = 0; k < n; k++) s = learn(s, { kind: 'clean', count: 1 }, config, now);
  }
  return s;
}

describe('learned rate (AIMD)', () => {
  it('starts from the configured rate and rises additively while responses are clean', () => {
    const start = startingRate(config);
    expect(start.rate).toBe(48);
    const after = cleanFor(start, 1);
    expect(after.rate).toBeCloseTo(50.4, 0);
    const later = cleanFor(start, 5);
    expect(later.rate).toBeGreaterThan(58);
    expect(later.rate).toBeLessThan(62);
  });

  it('never rises above the configured maximum', () => {
    expect(cleanFor(startingRate(config), 200).rate).toBe(48 * 4);
  });

  it('takes Zoom\'s stated per-second limit (with headroom) as the ceiling on a QPS 429', () => {
    const signal = rateSignalOf({ status: 429, headers: { 'X-RateLimit-Type': 'QPS', 'X-RateLimit-Limit': '20', 'Retry-After': '1' }, waitMs: 1000 }, T);
    const s = learn(startingRate(config), signal!, config, T);
    expect(s.rate).toBe(19);
    expect(s.ceiling).toBe(19);
    // Clean traffic does not probe above a stated limit while it is trusted...
    expect(cleanFor(s, 30).rate).toBe(19);
    // ...but does after an hour (a plan may have changed).
    expect(cleanFor(s, 3, T + 3600_000).rate).toBeGreaterThan(19);
  });

  it('cuts multiplicatively on a 429 without a stated limit, once per burst of refusals', () => {
    const refused = (at: number) => rateSignalOf({ status: 429, headers: { 'Retry-After': '1' }, waitMs: 1000 }, at)!;
    let s = learn(startingRate(config), refused(T), config, T);
    expect(s.rate).toBeCloseTo(33.6, 6);
    s = learn(s, refused(T + 200), config, T + 200); // a request in flight when the first 429 came back
    expect(s.rate).toBeCloseTo(33.6, 6);
    s = learn(s, refused(T + 1500), config, T + 1500);
    expect(s.rate).toBeCloseTo(23.52, 6);
    for (let i = 0; i < 50; i++) s = learn(s, refused(T + 10_000 * (i + 1)), config, T);
    expect(s.rate).toBe(0.5);
  });

  it('does not read a daily limit as a per-second rate', () => {
    const signal = rateSignalOf(
      { status: 429, headers: { 'x-ratelimit-type': 'Daily-limit', 'x-ratelimit-limit': '60000', 'retry-after': '2026-11-25T00:00:00Z' } },
      T,
    );
    expect(signal).toEqual({ kind: 'throttled', at: T, waitMs: 0 });
  });

  it('treats a 503 with Retry-After as throttling and one without as an outage', () => {
    expect(rateSignalOf({ status: 503, headers: { 'retry-after': '2.128' } }, T)?.kind).toBe('throttled');
    expect(rateSignalOf({ status: 503, headers: {} }, T)).toBeNull();
  });

  it('slows to what is left of Graph\'s resource-unit window when RateLimit-* headers appear', () => {
    const ms = defaultLearnedRateConfig(20);
    const signal = rateSignalOf({ status: 200, headers: { 'ratelimit-limit': '1200', 'ratelimit-remaining': '100', 'ratelimit-reset': '20' } }, T)!;
    expect(signal).toEqual({ kind: 'quota', at: T, limit: 1200, windowSeconds: 60, remaining: 100, resetSeconds: 20 });
    const s = learn(startingRate(ms), signal, ms, T);
    // 1200 RU/min = 20/s, 95 % of it = 19; 100 RU over 20 s = 5/s, but never below half the ceiling.
    expect(s.ceiling).toBeCloseTo(19, 6);
    expect(s.rate).toBeCloseTo(9.5, 6);
    // Plenty left: only the ceiling applies.
    const roomy = learn(startingRate(ms), { kind: 'quota', at: T, limit: 1200, windowSeconds: 60, remaining: 1000, resetSeconds: 50 }, ms, T);
    expect(roomy.rate).toBeCloseTo(19, 6);
  });

  it('counts a plain success as clean', () => {
    expect(rateSignalOf({ status: 200, headers: { 'content-type': 'application/json' } }, T)).toEqual({ kind: 'clean', count: 1 });
    expect(rateSignalOf({ status: 404, headers: {} }, T)).toBeNull();
  });
});
