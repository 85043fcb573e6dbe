// The one retry policy every provider call goes through. Pure: the caller passes the clock reading and the
// random source, so every decision is reproducible in a unit test.
import type { ProviderQuirks } from './quirks.ts';

export interface RetryConfig {
  /** Total attempts, the first one included. */
  maxAttempts: number;
  baseDelayMs: number;
  /** Cap for computed backoff. A provider's Retry-After is honoured even when longer (bounded by giveUpAfterMs). */
  maxDelayMs: number;
  /** Give up when the next attempt would start later than this after the first one. */
  giveUpAfterMs: number;
}

export type HeaderBag = Record<string, string | string[] | undefined>;

export type RetryInput = {
  /** Attempts made so far, including the one that just failed (1 after the first failure). */
  attempt: number;
  /** Time since the first attempt started. */
  elapsedMs: number;
  now: Date;
  random: () => number;
} & ({ kind: 'response'; status: number; headers: HeaderBag; body?: unknown } | { kind: 'network'; code?: string });

export type RetryDecision =
  { retry: true; waitMs: number; reason: string; pauseCredential: boolean } | { retry: false; reason: string };

export const defaultRetryConfig: RetryConfig = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  giveUpAfterMs: 10 * 60_000,
};

const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'socket hang up',
]);

// undici error codes that describe our own request or configuration, not a flaky network.
const PERMANENT_UNDICI_CODES = new Set([
  'UND_ERR_ABORTED',
  'UND_ERR_INVALID_ARG',
  'UND_ERR_INVALID_RETURN_VALUE',
  'UND_ERR_NOT_SUPPORTED',
  'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RES_EXCEEDED_MAX_SIZE',
]);

export function isRetryableStatus(status: number): boolean {
  if (status === 408 || status === 429) return true;
  // 501 Not Implemented and 505 HTTP Version Not Supported will not change on a retry.
  return status >= 500 && status <= 599 && status !== 501 && status !== 505;
}

export function isRetryableNetworkCode(code: string | undefined): boolean {
  // The caller classified the failure as a network error but had no code: assume transient.
  if (code === undefined) return true;
  if (RETRYABLE_NETWORK_CODES.has(code)) return true;
  return code.startsWith('UND_ERR_') && !PERMANENT_UNDICI_CODES.has(code);
}

/** Header lookup that ignores case and takes the first value of a repeated header. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const DELTA_SECONDS = /^\d+(\.\d+)?$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
// IMF-fixdate, RFC 850 and asctime all start with a day name.
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /i;

/**
 * Milliseconds to wait according to a Retry-After value: delta seconds (fractional allowed, as Graph sends
 * "2.128"), an HTTP date, or an ISO-8601 date-time (Zoom's daily limit). A date in the past means 0.
 * Undefined when the value is missing or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (DELTA_SECONDS.test(text)) return Math.ceil(Number(text) * 1000);
  let at: number;
  if (ISO_DATE_TIME.test(text)) {
    // A date-time without an offset would be read as local time by Date.parse; providers mean UTC.
    const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(text);
    at = Date.parse(hasZone ? text.replace(' ', 'T') : `${text.replace(' ', 'T')}Z`);
  } else if (HTTP_DATE.test(text)) {
    at = Date.parse(text);
  } else {
    return undefined;
  }
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/** A rate-limit reset header (epoch or delta seconds, by magnitude), used only without Retry-After. */
function parseRateLimitReset(headers: HeaderBag, names: readonly string[], now: Date): number | undefined {
  const raw = names.map((name) => headerValue(headers, name)).find((v) => v !== undefined);
  if (raw === undefined || !DELTA_SECONDS.test(raw.trim())) return undefined;
  const n = Number(raw.trim());
  // Values this large can only be epoch seconds; anything smaller is a delta.
  const ms = n > 1e9 ? n * 1000 - now.getTime() : n * 1000;
  return Math.max(0, Math.ceil(ms));
}

function nextUtcMidnight(now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime();
}

function backoffMs(attempt: number, config: RetryConfig, random: () => number): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(config.maxDelayMs, config.baseDelayMs * 2 ** exponent);
  // Full jitter: spreads retries of many workers hit by the same outage.
  return Math.floor(random() * ceiling);
}

function describe(input: RetryInput, quirks: ProviderQuirks): string {
  if (input.kind === 'network') return `network error ${input.code ?? 'unknown'}`;
  const categoryHeader = quirks.rateLimitHeaders.category;
  const category = categoryHeader ? headerValue(input.headers, categoryHeader) : undefined;
  return category ? `HTTP ${input.status} (${category} rate limit)` : `HTTP ${input.status}`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10}s`;
}

/** The provider's quirks (quirks.ts) say what a response means; the rest is the same for every provider. */
export function decideRetry(input: RetryInput, config: RetryConfig, quirks: ProviderQuirks): RetryDecision {
  const what = describe(input, quirks);
  let waitMs: number;
  let source: string;
  let pauseCredential = false;

  if (input.kind === 'network') {
    if (!isRetryableNetworkCode(input.code)) return { retry: false, reason: `${what} is not retryable` };
    waitMs = backoffMs(input.attempt, config, input.random);
    source = 'backoff';
  } else {
    const error = quirks.classifyError(input.status, input.headers, input.body);
    if (!error.retryable) return { retry: false, reason: `${what} is not retryable` };
    const retryAfter = parseRetryAfter(headerValue(input.headers, 'retry-after'), input.now);
    pauseCredential = error.throttled && error.paced !== true;
    if (retryAfter !== undefined) {
      waitMs = retryAfter;
      source = 'Retry-After';
    } else if (error.resetsAtUtcMidnight) {
      waitMs = nextUtcMidnight(input.now);
      source = 'daily limit reset at 00:00 UTC';
    } else {
      const reset = error.throttled
        ? parseRateLimitReset(input.headers, quirks.rateLimitHeaders.reset, input.now)
        : undefined;
      waitMs = reset ?? backoffMs(input.attempt, config, input.random);
      source = reset === undefined ? 'backoff' : 'rate-limit reset header';
    }
  }

  if (input.attempt >= config.maxAttempts) {
    return { retry: false, reason: `gave up after ${input.attempt} attempts: ${what}` };
  }
  if (input.elapsedMs + waitMs > config.giveUpAfterMs) {
    const resumeAt = new Date(input.now.getTime() + waitMs).toISOString();
    return {
      retry: false,
      reason:
        `gave up after ${input.attempt} attempts: ${what}; ${source} asks to wait ${seconds(waitMs)} ` +
        `(until ${resumeAt}), beyond the ${seconds(config.giveUpAfterMs)} retry window`,
    };
  }
  return { retry: true, waitMs, pauseCredential, reason: `${what}; retrying in ${seconds(waitMs)} (${source})` };
}
