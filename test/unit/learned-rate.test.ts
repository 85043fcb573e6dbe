import { describe, expect, it } from 'vitest';
import {
  defaultLearnedRateConfig,
  learn,
  rateSignalOf,
  startingRate,
  type LearnedRate,
  type RateSignal,
} from '../../src/provider/learned-rate.ts';

const config = defaultLearnedRateConfig(48); // Zoom's default budget: +2.4/s per clean second, x0.7 on a 429
const T = 1_700_000_000_000;

/** Zoom's 429 for a per-second limit that states it (X-RateLimit-Type QPS), as the client reports it at `at`. */
function statedQps(limit: number, at: number): RateSignal {
  return rateSignalOf(
    {
      status: 429,
      headers: { 'X-RateLimit-Type': 'QPS', 'X-RateLimit-Limit': String(limit), 'Retry-After': '1' },
      waitMs: 1000,
    },
    at,
  )!;
}

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

  it("finds a connector's guessed rate from below (slow start) and stops doubling at the first 429", () => {
    const guess = defaultLearnedRateConfig(48, undefined, true);
    const start = startingRate(guess);
    expect(start.rate).toBeCloseTo(28.8, 6);
    // One second of clean traffic at the rate in force: ×1.6 per second, up to the guess and no further.
    const second = (s: LearnedRate) => {
      let next = s;
      for (let k = 0, n = Math.round(s.rate); k < n; k++) next = learn(next, { kind: 'clean', count: 1 }, guess, T);
      return next;
    };
    expect(second(start).rate).toBeCloseTo(28.8 + 29 * 0.6, 6); // 29 answers in its first second, +0.6 each
    let at48 = start;
    while (at48.rate < 48) at48 = learn(at48, { kind: 'clean', count: 1 }, guess, T);
    expect(at48.rate).toBe(48);
    // Past a guess that met no refusal, additive probing at 10 % of it a second (4.8/s)...
    expect(second(at48).rate).toBeCloseTo(52.8, 0);
    // ...and at 5 % (2.4/s) once a refusal told something of the limit.
    const cut = learn(at48, { kind: 'throttled', at: T, waitMs: 1000 }, guess, T);
    expect(cut.rate).toBeCloseTo(33.6, 6);
    expect(second(cut).rate).toBeCloseTo(36, 0);
    // A 429 with a stated limit ends the slow start: the ceiling holds, additive steps from there.
    const refused = learn(start, statedQps(20, T), guess, T);
    expect(refused.rate).toBe(19);
    expect(second(refused).rate).toBe(19);
    // A rate the operator configured is not a guess: learning starts at it.
    expect(startingRate(defaultLearnedRateConfig(48, undefined, false)).rate).toBe(48);
  });

  it('never rises above the configured maximum', () => {
    expect(cleanFor(startingRate(config), 200).rate).toBe(48 * 4);
  });

  it("takes Zoom's stated per-second limit (with headroom) as the ceiling on a QPS 429", () => {
    const s = learn(startingRate(config), statedQps(20, T), config, T);
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

  it('goes to a per-second limit Zoom states when above it, instead of cutting below it', () => {
    // Probing up from the default: 61/s when the account's 60/s limit answers (Zoom docs' header set, QPS case).
    const probing: LearnedRate = { rate: 61, ceiling: null, ceilingAt: null, cutAt: null };
    const headers = {
      'X-RateLimit-Category': 'Medium',
      'X-RateLimit-Type': 'QPS',
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1700000001',
      'Retry-After': '1',
    };
    const s = learn(probing, rateSignalOf({ status: 429, headers, waitMs: 1000 }, T)!, config, T);
    expect(s.ceiling).toBe(57);
    expect(s.rate).toBe(57); // not 61 x 0.7 = 42.7
  });

  it('backs off gently on a 429 at or below a stated limit, and blind without one', () => {
    const headers = {
      'x-ratelimit-category': 'Medium',
      'x-ratelimit-type': 'QPS',
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'retry-after': '1',
    };
    // The ceiling eased as far as it goes (92 % of 60/s): another app spends some of the account's 60/s, x0.85.
    const atCeiling: LearnedRate = { rate: 55.2, ceiling: 55.2, ceilingAt: T - 60_000, cutAt: T - 60_000 };
    expect(learn(atCeiling, rateSignalOf({ status: 429, headers, waitMs: 1000 }, T)!, config, T).rate).toBeCloseTo(
      46.92,
      6,
    );
    // The stated limit is no longer trusted after an hour: a 429 without one is cut x0.7.
    const stale: LearnedRate = { ...atCeiling, ceilingAt: T - 3600_000 };
    expect(
      learn(stale, rateSignalOf({ status: 429, headers: { 'retry-after': '1' }, waitMs: 1000 }, T)!, config, T).rate,
    ).toBeCloseTo(38.64, 6);
  });

  it('eases the ceiling and the rate a step on each burst of 429s under a stated limit, then cuts at 92 % of it', () => {
    // The first 429 states the limit: 20 less 5 % headroom, not eased.
    let s = learn({ rate: 12, ceiling: null, ceilingAt: null, cutAt: null }, statedQps(20, T), config, T);
    expect(s.ceiling).toBe(19);
    // Requests bunched on the way at 19/s: 429 again, a burst later. The ceiling eases by 2 %, once per burst, and
    // the rate goes to it (no cut below it).
    s = learn({ ...s, rate: 19 }, statedQps(20, T + 5000), config, T + 5000);
    expect(s.ceiling).toBeCloseTo(18.62, 6);
    expect(s.rate).toBeCloseTo(18.62, 6);
    s = learn(s, statedQps(20, T + 5200), config, T + 5200); // in flight when the first came back
    expect(s.ceiling).toBeCloseTo(18.62, 6);
    s = learn(s, statedQps(20, T + 10_000), config, T + 10_000);
    // 18.62 x 0.98 = 18.25 is below the floor: 92 % of 20.
    expect(s.ceiling).toBeCloseTo(18.4, 6);
    expect(s.rate).toBeCloseTo(18.4, 6);
    // At the floor a refusal cuts the rate (x0.85)...
    s = learn(s, statedQps(20, T + 15_000), config, T + 15_000);
    expect(s.ceiling).toBeCloseTo(18.4, 6);
    expect(s.rate).toBeCloseTo(18.4 * 0.85, 6);
    // ...and clean traffic climbs back to the eased ceiling, not above it.
    expect(cleanFor(s, 10, T + 16_000).rate).toBeCloseTo(18.4, 6);
    // A lower limit stated later is taken as it is.
    expect(learn(s, statedQps(10, T + 100_000), config, T + 100_000).ceiling).toBe(9.5);
  });

  it('backs off on a 429 under a stated limit that comes while the rate is already below the ceiling', () => {
    // The limit is known (19 with headroom) and the rate is well under it, climbing back after a cut: the refusal
    // is not requests bunched at the ceiling (another app spends the account's share), so the rate backs off.
    const under: LearnedRate = { rate: 12, ceiling: 19, ceilingAt: T - 60_000, cutAt: T - 60_000 };
    expect(learn(under, statedQps(20, T), config, T).rate).toBeCloseTo(12 * 0.85, 6);
  });

  it('does not take the daily count of a 429 without X-RateLimit-Type for a per-second limit', () => {
    // The shape seen in the field (devforum 18928): category, limit and remaining only.
    const signal = rateSignalOf(
      {
        status: 429,
        headers: { 'x-ratelimit-category': 'Light', 'x-ratelimit-limit': '6000', 'x-ratelimit-remaining': '5893' },
      },
      T,
    )!;
    expect(signal).toEqual({ kind: 'throttled', at: T, waitMs: 0 });
    const s = learn(startingRate(config), signal, config, T);
    expect(s.ceiling).toBeNull();
    expect(s.rate).toBeCloseTo(33.6, 6);
  });

  it('does not read a daily limit as a per-second rate', () => {
    const signal = rateSignalOf(
      {
        status: 429,
        headers: {
          'x-ratelimit-type': 'Daily-limit',
          'x-ratelimit-limit': '60000',
          'retry-after': '2026-11-25T00:00:00Z',
        },
      },
      T,
    );
    expect(signal).toEqual({ kind: 'throttled', at: T, waitMs: 0 });
  });

  it('treats a 503 with Retry-After as throttling and one without as an outage', () => {
    expect(rateSignalOf({ status: 503, headers: { 'retry-after': '2.128' } }, T)?.kind).toBe('throttled');
    expect(rateSignalOf({ status: 503, headers: {} }, T)).toBeNull();
  });

  it("slows to what is left of Graph's resource-unit window when RateLimit-* headers appear", () => {
    const ms = defaultLearnedRateConfig(20);
    const signal = rateSignalOf(
      { status: 200, headers: { 'ratelimit-limit': '1200', 'ratelimit-remaining': '100', 'ratelimit-reset': '20' } },
      T,
    )!;
    expect(signal).toEqual({ kind: 'quota', at: T, limit: 1200, windowSeconds: 60, remaining: 100, resetSeconds: 20 });
    const s = learn(startingRate(ms), signal, ms, T);
    // 1200 RU/min = 20/s, 95 % of it = 19; 100 RU over 20 s = 5/s, but never below half the ceiling.
    expect(s.ceiling).toBeCloseTo(19, 6);
    expect(s.rate).toBeCloseTo(9.5, 6);
    // Plenty left: only the ceiling applies.
    const roomy = learn(
      startingRate(ms),
      { kind: 'quota', at: T, limit: 1200, windowSeconds: 60, remaining: 1000, resetSeconds: 50 },
      ms,
      T,
    );
    expect(roomy.rate).toBeCloseTo(19, 6);
  });

  it('counts a plain success as clean', () => {
    expect(rateSignalOf({ status: 200, headers: { 'content-type': 'application/json' } }, T)).toEqual({
      kind: 'clean',
      count: 1,
    });
    expect(rateSignalOf({ status: 404, headers: {} }, T)).toBeNull();
  });
});
