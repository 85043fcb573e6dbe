// The learned request rate of one credential: additive increase while responses are clean, multiplicative
// decrease on a 429, and a ceiling taken from what the provider states about its limit. Pure: (state, signal,
// config) -> state, so every rule is unit-tested on header shapes without a clock or a server.

export interface LearnedRateConfig {
  /** Where learning starts: the configured (or the connector's default) rate, requests or units per second. */
  initial: number;
  /** Never below this, however many 429s. */
  min: number;
  /** Never above this, however long responses stay clean. */
  max: number;
  /** Additive increase: per second of clean traffic the rate rises by this much. */
  increasePerSecond: number;
  /**
   * The additive increase while nothing is known of the provider's limit (no 429, no stated limit), past the end of
   * a slow start: the guess met no refusal, so the limit is higher. Once a limit is known, `increasePerSecond`.
   */
  probeIncreasePerSecond: number;
  /**
   * Slow start: before the provider said anything of its limit (no 429, no stated limit) learning starts at this
   * rate and rises multiplicatively (by `slowStartGain` of the rate per second of clean traffic) up to `initial`.
   * A provider's limit below `initial` is then found with an overshoot of a few requests instead of a burst at
   * `initial` (each refused request holds its unit for the whole Retry-After).
   */
  slowStartFrom: number;
  slowStartGain: number;
  /** Multiplicative decrease on a 429. */
  decrease: number;
  /**
   * Multiplicative decrease on a 429 at or below a limit the provider stated (and is still trusted): the limit is
   * known and the rate already keeps headroom under it, so the refusal means another app spent some of the
   * account's share, or requests bunched on the way; back off less than blind.
   */
  decreaseUnderStatedLimit: number;
  /** Share of a limit the provider states that the rate may use (the rest absorbs other apps and jitter). */
  headroom: number;
  /**
   * A 429 at or below the trusted ceiling of the limit the provider stated, with the rate at that ceiling (requests
   * bunched on the way, so the provider counted more in one of its seconds than were sent in any), lowers that
   * ceiling by this factor, once per burst of refusals, and the rate with it (a rate under the ceiling is cut):
   * repeated ones ease it towards `minHeadroom` of the limit instead of cutting the rate and probing back up into the
   * next refusal. At that floor a refusal cuts the rate
   * (`decreaseUnderStatedLimit`). A stated limit lower than the ceiling, or one no longer trusted, sets it afresh.
   */
  ceilingEase: number;
  /** The lowest share of a stated limit the ceiling eases to. */
  minHeadroom: number;
  /** A stated limit is trusted this long; after it the rate may probe above it again (plans change). */
  ceilingTtlMs: number;
}

export interface LearnedRate {
  rate: number;
  /** Highest rate allowed, from a limit the provider stated; null when none is known. */
  ceiling: number | null;
  /** When the ceiling was learned (epoch ms). */
  ceilingAt: number | null;
  /** When the rate was last cut (epoch ms): one 429 burst is one cut, not one per refused request. */
  cutAt: number | null;
}

export type RateSignal =
  /** `count` requests answered without throttling, at the rate in force. */
  | { kind: 'clean'; count: number }
  /** A 429 (or a throttling 503). `limitPerSecond` when the provider stated its per-second limit. */
  | { kind: 'throttled'; at: number; waitMs: number; limitPerSecond?: number }
  /** The provider reports a quota window (IETF RateLimit-*): `remaining` units until `resetSeconds` from now. */
  | { kind: 'quota'; at: number; limit: number; windowSeconds: number; remaining: number; resetSeconds: number };

/** How long a limit the provider stated is trusted (plans change). */
export const CEILING_TTL_MS = 3600_000;

/**
 * `operatorMax`: the operator's ceiling; learning starts, stays and probes at or below it. `slowStart`: the
 * configured rate is a connector's guess, not the operator's: learning starts at 60 % of it.
 */
export function defaultLearnedRateConfig(
  configured: number,
  operatorMax?: number,
  slowStart = false,
): LearnedRateConfig {
  const cap = operatorMax !== undefined && operatorMax > 0 ? operatorMax : Infinity;
  const initial = Math.min(configured, cap);
  return {
    initial,
    min: Math.min(initial, 0.5),
    max: Math.min(initial * 4, cap),
    // Reaches a limit 25 % above the starting rate within about five seconds of clean traffic.
    increasePerSecond: Math.max(0.5, initial * 0.05),
    // Past a guess that met no refusal yet: 25 % above it within about two and a half seconds.
    probeIncreasePerSecond: Math.max(0.5, initial * (slowStart ? 0.1 : 0.05)),
    // 60 % of the guess (28.8/s for Zoom's 48/s): above Pro's 20/s, so a Pro account is refused the requests in
    // flight when the first 429 comes back (3-4 at 80 ms), and a Business+ account's 60/s is reached a second sooner
    // than from half (issue 25: a first run at 60/s used 87-89 % of the limit from half, 91 % from 60 %).
    slowStartFrom: slowStart ? Math.max(Math.min(initial, 0.5), initial * 0.6) : initial,
    // ×1.8 per second: from 60 % of the starting rate to all of it in under a second.
    slowStartGain: 0.6,
    decrease: 0.7,
    decreaseUnderStatedLimit: 0.85,
    headroom: 0.95,
    ceilingEase: 0.98,
    minHeadroom: 0.92,
    ceilingTtlMs: CEILING_TTL_MS,
  };
}

export function startingRate(config: LearnedRateConfig): LearnedRate {
  return { rate: config.slowStartFrom, ceiling: null, ceilingAt: null, cutAt: null };
}

/** Nothing is known of the provider's limit yet: no refusal, no stated limit. */
const unknownLimit = (state: LearnedRate): boolean => state.ceiling === null && state.cutAt === null;

/** The ceiling from a limit the provider stated, while it is trusted; null otherwise. */
export function trustedCeiling(
  state: Pick<LearnedRate, 'ceiling' | 'ceilingAt'>,
  config: Pick<LearnedRateConfig, 'ceilingTtlMs'>,
  now: number,
): number | null {
  return state.ceiling !== null && state.ceilingAt !== null && now - state.ceilingAt < config.ceilingTtlMs
    ? state.ceiling
    : null;
}

/** The highest rate allowed at `now`: the configured max, or a stated limit still trusted. */
export function rateCap(state: LearnedRate, config: LearnedRateConfig, now: number): number {
  return Math.min(config.max, trustedCeiling(state, config, now) ?? Infinity);
}

const clamp = (value: number, low: number, high: number) => Math.max(low, Math.min(high, value));

export function learn(state: LearnedRate, signal: RateSignal, config: LearnedRateConfig, now: number): LearnedRate {
  switch (signal.kind) {
    case 'clean': {
      // `count` requests at `rate` per second took count/rate seconds: the additive step is per second of traffic,
      // so the fleet's processes together raise the rate as fast as one process would.
      const unknown = unknownLimit(state);
      const step =
        unknown && state.rate < config.initial
          ? Math.min(config.slowStartGain * signal.count, config.initial - state.rate)
          : ((unknown ? config.probeIncreasePerSecond : config.increasePerSecond) * signal.count) / state.rate;
      return { ...state, rate: clamp(state.rate + step, config.min, rateCap(state, config, now)) };
    }
    case 'throttled': {
      // Refusals of requests already in flight when the first came back belong to the same event.
      const sameEvent = state.cutAt !== null && signal.at - state.cutAt < Math.max(1000, signal.waitMs);
      let next = state;
      let explained = false;
      if (signal.limitPerSecond !== undefined && signal.limitPerSecond > 0) {
        const { ceiling, known } = statedCeiling(state, signal.limitPerSecond, config, now);
        // Above a limit the provider just stated, the refusal is explained: go to that limit (less headroom), no
        // lower. At or below it, requests bunched on the way (or someone else spends the account's share too):
        // the ceiling eases a step and the rate goes down to it; once the ceiling can ease no further, back off
        // multiplicatively and probe up again.
        explained = state.rate > Math.min(config.max, ceiling);
        const eased =
          known && !sameEvent && !explained ? easedCeiling(ceiling, signal.limitPerSecond, config) : ceiling;
        // Only a rate at the ceiling can have had its requests bunched there; a refusal under it is someone else
        // spending the account's share: the rate is cut, the ceiling kept.
        const easing = eased < ceiling && state.rate >= eased;
        next = { ...next, ceiling: easing ? eased : ceiling, ceilingAt: signal.at };
        if (easing) explained = true;
      }
      const cap = rateCap(next, config, now);
      const factor = cap < config.max ? config.decreaseUnderStatedLimit : config.decrease;
      const cut = sameEvent || explained ? next.rate : next.rate * factor;
      return { ...next, rate: clamp(cut, config.min, cap), cutAt: sameEvent ? state.cutAt : signal.at };
    }
    case 'quota': {
      const ceiling = (signal.limit / signal.windowSeconds) * config.headroom;
      const learned = { ...state, ceiling, ceilingAt: signal.at };
      // What is left of the window, spread over the time until it resets, is all that may be spent now.
      const sustainable = signal.remaining / Math.max(1, signal.resetSeconds);
      return {
        ...learned,
        rate: clamp(
          Math.min(state.rate, Math.max(sustainable, ceiling * 0.5)),
          config.min,
          rateCap(learned, config, now),
        ),
      };
    }
    default: {
      const unknown: never = signal;
      throw new Error(`unknown rate signal ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * The ceiling a 429 stating `limit` per second finds: the trusted one under it (`known`: a refusal under it eases
 * it), or the limit less headroom (the first refusal stating this limit).
 */
function statedCeiling(
  state: LearnedRate,
  limit: number,
  config: LearnedRateConfig,
  now: number,
): { ceiling: number; known: boolean } {
  const stated = limit * config.headroom;
  const trusted = trustedCeiling(state, config, now);
  return trusted === null || trusted > stated ? { ceiling: stated, known: false } : { ceiling: trusted, known: true };
}

/** One step down from `ceiling` after a refusal under it, to no lower than `minHeadroom` of the limit. */
function easedCeiling(ceiling: number, limit: number, config: LearnedRateConfig): number {
  return Math.min(ceiling, Math.max(limit * config.minHeadroom, ceiling * config.ceilingEase));
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const number = (value: string | undefined): number | undefined => {
  if (value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
};

/**
 * What a response says about the credential's rate. Zoom states its per-second limit in X-RateLimit-Limit when
 * X-RateLimit-Type is QPS (a Daily-limit is a day's cap, not a rate); Graph sends IETF RateLimit-Limit /
 * -Remaining / -Reset over its one-minute resource-unit window once 80 % of it is used.
 */
export function rateSignalOf(
  response: { status: number; headers: Headers; waitMs?: number },
  at: number,
  graphWindowSeconds = 60,
): RateSignal | null {
  const { status, headers } = response;
  if (status === 429 || (status === 503 && header(headers, 'retry-after') !== undefined)) {
    const type = header(headers, 'x-ratelimit-type')?.trim().toLowerCase();
    const limit = number(header(headers, 'x-ratelimit-limit'));
    return {
      kind: 'throttled',
      at,
      waitMs: response.waitMs ?? 0,
      ...(type === 'qps' && limit !== undefined && { limitPerSecond: limit }),
    };
  }
  if (status >= 400) return null;
  const limit = number(header(headers, 'ratelimit-limit'));
  const remaining = number(header(headers, 'ratelimit-remaining'));
  const reset = number(header(headers, 'ratelimit-reset'));
  if (limit !== undefined && remaining !== undefined && reset !== undefined && limit > 0) {
    return { kind: 'quota', at, limit, windowSeconds: graphWindowSeconds, remaining, resetSeconds: reset };
  }
  return { kind: 'clean', count: 1 };
}
