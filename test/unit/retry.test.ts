import { describe, expect, it } from 'vitest';
import { graphQuirks } from '../../src/connectors/onedrive/quirks.ts';
import { zoomQuirks } from '../../src/connectors/zoom/quirks.ts';
import { httpQuirks } from '../../src/provider/quirks.ts';
import { decideRetry, parseRetryAfter, type RetryConfig, type RetryInput } from '../../src/provider/retry.ts';

const config: RetryConfig = { maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 30_000, giveUpAfterMs: 10 * 60_000 };
const now = new Date('2026-11-21T18:30:00Z');

function response(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  extra: Partial<RetryInput> = {},
): RetryInput {
  return { attempt: 1, elapsedMs: 0, now, random: () => 0.5, kind: 'response', status, headers, ...extra };
}

function network(code: string | undefined, extra: Partial<RetryInput> = {}): RetryInput {
  return { attempt: 1, elapsedMs: 0, now, random: () => 0.5, kind: 'network', code, ...extra } as RetryInput;
}

describe('parseRetryAfter', () => {
  it('reads delta seconds, including the fractional seconds Graph sends', () => {
    expect(parseRetryAfter('2.128', now)).toBe(2128);
    expect(parseRetryAfter('0.05', now)).toBe(50);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 3 ', now)).toBe(3000);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP date (IMF-fixdate and RFC 850)', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 18:30:45 GMT', now)).toBe(45_000);
    expect(parseRetryAfter('Saturday, 21-Nov-26 18:31:00 GMT', now)).toBe(60_000);
  });

  it("reads Zoom's ISO date-time for the daily limit", () => {
    expect(parseRetryAfter('2026-11-22T00:00:00Z', now)).toBe(5.5 * 3600_000);
    expect(parseRetryAfter('2026-11-22T00:00:00.000+00:00', now)).toBe(5.5 * 3600_000);
  });

  it('treats an ISO date-time without an offset as UTC, not local time', () => {
    expect(parseRetryAfter('2026-11-21T18:31:00', now)).toBe(60_000);
  });

  it('returns 0 for a date already past and undefined for garbage', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1 2', now)).toBeUndefined();
  });
});

describe('decideRetry on real provider responses', () => {
  it('honours Graph 429 Retry-After 2.128 and pauses the credential', () => {
    const d = decideRetry(
      response(429, {
        'content-type': 'application/json',
        'retry-after': '2.128',
        'request-id': '94fb3b52-452a-4535-a601-69e0a90e3aa2',
        'x-ms-ags-diagnostic': '{"ServerInfo":{"DataCenter":"West US"}}',
      }),
      config,
      graphQuirks,
    );
    expect(d).toEqual({
      retry: true,
      waitMs: 2128,
      pauseCredential: true,
      reason: expect.stringContaining('HTTP 429'),
    });
  });

  it('honours a SharePoint 503 Retry-After and pauses the whole credential (throttling)', () => {
    const d = decideRetry(response(503, { 'Retry-After': '10', 'Content-Length': '0' }), config, graphQuirks);
    expect(d).toMatchObject({ retry: true, waitMs: 10_000, pauseCredential: true });
  });

  it('treats a bare 503 without Retry-After as a server error: backoff, no pause', () => {
    expect(decideRetry(response(503, {}), config, graphQuirks)).toMatchObject({ retry: true, pauseCredential: false });
  });

  it("gives up on Zoom's daily limit when the reset is beyond the retry window, and says why", () => {
    const d = decideRetry(
      response(429, {
        'x-ratelimit-category': 'Heavy',
        'x-ratelimit-type': 'Daily-limit',
        'x-ratelimit-limit': '60000',
        'x-ratelimit-remaining': '0',
        'retry-after': '2026-11-22T00:00:00Z',
        'x-zm-trackingid': 'v=2.0;clid=us06;rid=WEB_1',
      }),
      config,
      zoomQuirks,
    );
    expect(d.retry).toBe(false);
    expect(d.reason).toContain('HTTP 429 (Heavy rate limit)');
    expect(d.reason).toContain('2026-11-22T00:00:00.000Z');
    expect(d.reason).toContain('retry window');
  });

  it("waits for Zoom's daily reset when the window allows it", () => {
    const longWindow = { ...config, giveUpAfterMs: 24 * 3600_000 };
    const d = decideRetry(
      response(429, { 'retry-after': '2026-11-22T00:00:00Z', 'x-ratelimit-type': 'Daily-limit' }),
      longWindow,
      zoomQuirks,
    );
    expect(d).toMatchObject({ retry: true, waitMs: 5.5 * 3600_000, pauseCredential: true });
  });

  it('infers the 00:00 UTC reset for a Zoom daily-limit 429 that carries no Retry-After', () => {
    const longWindow = { ...config, giveUpAfterMs: 24 * 3600_000 };
    const d = decideRetry(
      response(429, { 'X-RateLimit-Type': 'Daily-limit', 'X-RateLimit-Category': 'Heavy' }),
      longWindow,
      zoomQuirks,
    );
    expect(d).toMatchObject({ retry: true, waitMs: 5.5 * 3600_000 });
    expect(decideRetry(response(429, { 'X-RateLimit-Type': 'Daily-limit' }), config, zoomQuirks).retry).toBe(false);
  });

  it('uses X-RateLimit-Reset (epoch seconds) on a Zoom QPS 429 without Retry-After', () => {
    const reset = String(now.getTime() / 1000 + 1);
    const d = decideRetry(
      response(429, {
        'x-ratelimit-category': 'Light',
        'x-ratelimit-type': 'QPS',
        'x-ratelimit-limit': '80',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': reset,
      }),
      config,
      zoomQuirks,
    );
    // The limit is stated: the budget paces under it, only this request waits.
    expect(d).toMatchObject({ retry: true, waitMs: 1000, pauseCredential: false });
  });

  it('pauses the credential on a Zoom 429 only when no per-second limit is stated to pace under', () => {
    const qps = { 'x-ratelimit-category': 'Light', 'x-ratelimit-type': 'QPS', 'retry-after': '1' };
    expect(decideRetry(response(429, { ...qps, 'x-ratelimit-limit': '20' }), config, zoomQuirks)).toMatchObject({
      retry: true,
      waitMs: 1000,
      pauseCredential: false,
    });
    expect(decideRetry(response(429, qps), config, zoomQuirks)).toMatchObject({ pauseCredential: true });
    expect(decideRetry(response(429, { ...qps, 'x-ratelimit-limit': 'many' }), config, zoomQuirks)).toMatchObject({
      pauseCredential: true,
    });
    // A 429 of another provider (no Zoom headers) still pauses the credential.
    expect(decideRetry(response(429, { 'retry-after': '1' }), config, httpQuirks)).toMatchObject({
      pauseCredential: true,
    });
  });

  it('falls back to jittered backoff for the bare Zoom per-user 429 (no type, no Retry-After)', () => {
    const headers = { 'x-ratelimit-category': 'Light', 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0' };
    expect(decideRetry(response(429, headers, { random: () => 0.5 }), config, zoomQuirks)).toMatchObject({
      retry: true,
      waitMs: 250,
    });
    expect(decideRetry(response(429, headers, { random: () => 0.999, attempt: 3 }), config, zoomQuirks)).toMatchObject({
      waitMs: 1998,
    });
  });

  it('takes the first value of a repeated header', () => {
    expect(decideRetry(response(503, { 'retry-after': ['1', '99'] }), config, httpQuirks)).toMatchObject({
      waitMs: 1000,
    });
  });

  it('ignores an unreadable Retry-After and backs off instead', () => {
    expect(decideRetry(response(503, { 'retry-after': 'later' }), config, httpQuirks)).toMatchObject({
      retry: true,
      waitMs: 250,
    });
  });
});

describe('decideRetry classification', () => {
  it.each([500, 502, 503, 504, 507, 509, 408])('retries HTTP %i', (status) => {
    expect(decideRetry(response(status, {}), config, httpQuirks)).toMatchObject({
      retry: true,
      pauseCredential: false,
    });
  });

  it.each([400, 401, 403, 404, 409, 416, 501, 505])('does not retry HTTP %i', (status) => {
    const d = decideRetry(response(status, { 'retry-after': '1' }), config, httpQuirks);
    expect(d).toEqual({ retry: false, reason: `HTTP ${status} is not retryable` });
  });

  it.each([
    'ECONNRESET',
    'ETIMEDOUT',
    'ECONNREFUSED',
    'EAI_AGAIN',
    'socket hang up',
    'UND_ERR_SOCKET',
    'UND_ERR_HEADERS_TIMEOUT',
    'UND_ERR_BODY_TIMEOUT',
    undefined,
  ])('retries network error %s', (code) => {
    expect(decideRetry(network(code), config, httpQuirks)).toMatchObject({ retry: true, pauseCredential: false });
  });

  it.each(['UND_ERR_ABORTED', 'UND_ERR_INVALID_ARG', 'ERR_INVALID_URL', 'CERT_HAS_EXPIRED'])(
    'does not retry %s',
    (code) => {
      expect(decideRetry(network(code), config, httpQuirks)).toMatchObject({
        retry: false,
        reason: `network error ${code} is not retryable`,
      });
    },
  );
});

describe('decideRetry backoff and limits', () => {
  it('grows exponentially with full jitter and caps at maxDelayMs', () => {
    const top = (attempt: number) =>
      decideRetry(network('ECONNRESET', { attempt, random: () => 1 }), { ...config, maxAttempts: 100 }, httpQuirks);
    expect([1, 2, 3, 4].map((a) => (top(a) as { waitMs: number }).waitMs)).toEqual([500, 1000, 2000, 4000]);
    expect(top(7)).toMatchObject({ waitMs: 30_000 });
    expect(top(60)).toMatchObject({ waitMs: 30_000 });
    expect(decideRetry(network('ECONNRESET', { attempt: 4, random: () => 0 }), config, httpQuirks)).toMatchObject({
      waitMs: 0,
    });
  });

  it('gives up after maxAttempts with a reason naming the attempts and the failure', () => {
    expect(decideRetry(response(503, {}, { attempt: 5 }), config, httpQuirks).retry).toBe(true);
    expect(decideRetry(response(503, {}, { attempt: 6 }), config, httpQuirks)).toEqual({
      retry: false,
      reason: 'gave up after 6 attempts: HTTP 503',
    });
    expect(decideRetry(network('ECONNRESET', { attempt: 6 }), config, httpQuirks)).toEqual({
      retry: false,
      reason: 'gave up after 6 attempts: network error ECONNRESET',
    });
  });

  it('gives up when the wait would cross giveUpAfterMs', () => {
    const tight = { ...config, giveUpAfterMs: 60_000 };
    expect(decideRetry(response(503, { 'retry-after': '30' }, { elapsedMs: 29_000 }), tight, httpQuirks).retry).toBe(
      true,
    );
    const d = decideRetry(response(503, { 'retry-after': '30' }, { elapsedMs: 31_000 }), tight, httpQuirks);
    expect(d.retry).toBe(false);
    expect(d.reason).toMatch(/^gave up after 1 attempts: HTTP 503; Retry-After asks to wait 30s/);
  });

  it('honours a Retry-After longer than maxDelayMs (the provider knows best) inside the window', () => {
    expect(decideRetry(response(429, { 'retry-after': '120' }), config, httpQuirks)).toMatchObject({
      retry: true,
      waitMs: 120_000,
    });
  });
});

describe('decideRetry reads the error through the connector quirks', () => {
  // Google Drive signals throttling with a 403 whose body names the reason: only the body tells it apart.
  const bodyQuirks = {
    ...httpQuirks,
    classifyError: (status: number, headers: Record<string, string | string[] | undefined>, body: unknown) =>
      status === 403 && JSON.stringify(body).includes('userRateLimitExceeded')
        ? { retryable: true, throttled: true }
        : httpQuirks.classifyError(status, headers, body),
  };

  it('retries a 403 the quirks call throttling, pausing the credential, and not a plain 403', () => {
    const throttled = { error: { errors: [{ domain: 'usageLimits', reason: 'userRateLimitExceeded' }], code: 403 } };
    expect(decideRetry(response(403, {}, { body: throttled }), config, bodyQuirks)).toMatchObject({
      retry: true,
      pauseCredential: true,
    });
    expect(
      decideRetry(response(403, {}, { body: { error: { code: 403, message: 'forbidden' } } }), config, bodyQuirks),
    ).toEqual({
      retry: false,
      reason: 'HTTP 403 is not retryable',
    });
  });

  it("names the limit only from the connector's category header", () => {
    expect(
      decideRetry(response(503, { 'x-ratelimit-category': 'Heavy' }, { attempt: 6 }), config, zoomQuirks).reason,
    ).toContain('(Heavy rate limit)');
    expect(
      decideRetry(response(503, { 'x-ratelimit-category': 'Heavy' }, { attempt: 6 }), config, graphQuirks).reason,
    ).toBe('gave up after 6 attempts: HTTP 503');
  });
});
