// What differs from one provider's HTTP API to another, declared by each connector as data and small functions:
// which headers carry the request id and the rate-limit facts, and what an error response means. The client
// (provider-http.ts) and the retry decision (retry.ts) read only this, never a provider's name.
import { headerValue, isRetryableStatus, parseRetryAfter, type HeaderBag } from './retry.ts';

export interface RateLimitHeaders {
  /** Names the limit that was hit (shown in the retry reason), e.g. Zoom's `x-ratelimit-category`. */
  category?: string;
  /** When the limit resets, epoch or delta seconds; read in order, only when there is no Retry-After. */
  reset: readonly string[];
}

export interface ErrorClass {
  /** Whether waiting and trying again may succeed. */
  retryable: boolean;
  /** The provider asks every request of the credential to stop, not only this one. */
  throttled: boolean;
  /**
   * The refusal is of a per-second limit the provider stated (Zoom's QPS 429 with X-RateLimit-Limit): the budget
   * learns that limit from the same response and paces every request under it, so only the refused request waits
   * its Retry-After; the credential is not paused (a pause would idle every unit for a second per 429).
   */
  paced?: boolean;
  /** A daily quota that resets at 00:00 UTC: without a Retry-After, wait until then instead of backing off. */
  resetsAtUtcMidnight?: boolean;
  /** The provider's own error code and message, from the body. */
  code?: string | number;
  message?: string;
}

export interface ProviderQuirks {
  rateLimitHeaders: RateLimitHeaders;
  /** Headers carrying the provider's id of a request (quoted in errors and logs); the first present wins. */
  requestIdHeaders: readonly string[];
  classifyError(status: number, headers: HeaderBag, body: unknown): ErrorClass;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function scalar(value: unknown): string | number | undefined {
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, 500) : undefined;
}

/** An OAuth 2.0 error body (RFC 6749 §5.2): `{error, error_description}`. */
export function oauthErrorDetails(body: unknown): { code?: string | number; message?: string } | undefined {
  if (!isRecord(body) || typeof body.error !== 'string') return undefined;
  return { code: body.error, message: text(body.error_description) ?? text(body.reason) };
}

/**
 * What the status alone says: 408, 429 and most 5xx are transient; a 429, or a 503 that says how long to back
 * off, asks the whole credential to pause.
 */
export function classifyStatus(status: number, headers: HeaderBag): Pick<ErrorClass, 'retryable' | 'throttled'> {
  return {
    retryable: isRetryableStatus(status),
    throttled:
      status === 429 ||
      (status === 503 && parseRetryAfter(headerValue(headers, 'retry-after'), new Date(0)) !== undefined),
  };
}

/** Plain HTTP: the IETF RateLimit headers, a conventional request id, OAuth error bodies. */
export const httpQuirks: ProviderQuirks = {
  rateLimitHeaders: { reset: ['ratelimit-reset'] },
  requestIdHeaders: ['request-id', 'x-request-id'],
  classifyError: (status, headers, body) => ({ ...classifyStatus(status, headers), ...oauthErrorDetails(body) }),
};

export function requestIdOf(quirks: ProviderQuirks, headers: HeaderBag): string | undefined {
  for (const name of quirks.requestIdHeaders) {
    const value = headerValue(headers, name);
    if (value !== undefined) return value;
  }
  return undefined;
}
