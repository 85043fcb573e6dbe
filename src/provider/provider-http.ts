// The HTTP client every connector talks to its provider through, one instance per credential.
// Every attempt passes the credential's budget; failures go through the one retry policy; redirects are
// followed by hand so the bearer token never leaves the API's origin (Zoom and OneDrive downloads 302 to
// pre-signed URLs on other hosts, which must not receive it).
import { request, type Dispatcher } from 'undici';
import { sleep, systemClock, type Clock, type Release } from './budget.ts';
import { requestIdOf } from './quirks.ts';
import { decideRetry, type HeaderBag } from './retry.ts';
import {
  flattenHeaders,
  headerString,
  lowerKeys,
  networkCode,
  parseBody,
  readBody,
  redact,
  redactDeep,
  safeUrl,
} from './http-wire.ts';
import { ProviderError, type ProviderErrorCode } from './provider-error.ts';
import { waitGauges } from './wait-gauge.ts';
import type { Budget } from './shared-budget.ts';
import type { JsonRequestOptions, ProviderHttpOptions, StreamRequestOptions, StreamResponse } from './http-options.ts';

interface Prepared {
  method: string;
  headers: Record<string, string>;
  body?: string;
  auth: boolean;
  cost: number;
}

interface Hop {
  status: number;
  headers: HeaderBag;
  body: Dispatcher.ResponseData['body'];
  finalUrl: string;
  sameOrigin: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_DEADLINE_MS = 60_000;
const PROGRESS_TICK_MS = 1000;
// Never carried to another origin, whoever set them.
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

export class ProviderHttp {
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly isAuthError: (status: number, body: unknown) => boolean;

  constructor(private readonly options: ProviderHttpOptions) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.isAuthError = options.isAuthError ?? ((status) => status === 401);
  }

  /** The credential's budget every request of this client passes. */
  get budget(): Budget {
    return this.options.budget;
  }

  async json<T>(url: string, opts: JsonRequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...lowerKeys(opts.headers) };
    let body: string | undefined;
    if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(opts.form).toString();
    } else if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const prep = this.prepare(opts.method ?? 'GET', headers, body, opts.auth, opts.cost);
    return this.run(url, prep, opts.signal, async (hop, release) => {
      let bytes: Buffer;
      try {
        bytes = await readBody(hop.body, this.options.jsonBodyLimit ?? 32 * 1024 * 1024, true);
      } finally {
        release();
      }
      if (bytes.length === 0) return undefined as T;
      try {
        return JSON.parse(bytes.toString('utf8')) as T;
      } catch (cause) {
        throw new ProviderError(
          `${prep.method} ${safeUrl(hop.finalUrl)} returned HTTP ${hop.status} with a body that is not JSON`,
          {
            code: 'invalid_response',
            retryable: false,
            status: hop.status,
            requestId: requestIdOf(this.options.quirks, hop.headers),
            cause,
          },
        );
      }
    });
  }

  async stream(url: string, opts: StreamRequestOptions = {}): Promise<StreamResponse> {
    const headers = lowerKeys(opts.headers);
    if (opts.range) headers.range = `bytes=${opts.range.start}-`;
    const prep = this.prepare('GET', headers, undefined, opts.auth, opts.cost);
    return this.run(url, prep, opts.signal, async (hop, release) => {
      hop.body.once('close', release);
      return { status: hop.status, headers: flattenHeaders(hop.headers), body: hop.body, finalUrl: hop.finalUrl };
    });
  }

  private prepare(
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    auth: boolean | undefined,
    cost = 1,
  ): Prepared {
    return {
      method: method.toUpperCase(),
      headers: { ...headers, 'user-agent': this.options.userAgent },
      body,
      auth: (auth ?? true) && !!this.options.auth,
      cost,
    };
  }

  private async run<T>(
    url: string,
    prep: Prepared,
    callSignal: AbortSignal | undefined,
    onSuccess: (hop: Hop, release: Release) => Promise<T>,
  ): Promise<T> {
    const signals = [this.options.signal, callSignal].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const { budget, retry, auth, log, quirks } = this.options;
    const started = this.clock.now();
    const seenTokens: string[] = [];
    let refreshedToken: string | undefined;
    let refreshed = false;
    let attempt = 0;

    const aborted = () =>
      new ProviderError(`${prep.method} ${safeUrl(url)} aborted`, {
        code: 'aborted',
        retryable: false,
        cause: signal?.reason,
      });
    const wait = (ms: number) => sleep(this.clock, ms, signal).catch(() => Promise.reject(aborted()));

    for (;;) {
      attempt += 1;
      let token: string | undefined;
      if (prep.auth && auth) {
        token = refreshedToken ?? (await auth.token());
        refreshedToken = undefined;
        seenTokens.push(token);
      }
      let release: Release;
      // A pause of the credential (a provider's Retry-After, seen by any request) is a wait the provider stated.
      const pauseTick =
        this.options.onProgress && budget.pausedUntil
          ? setInterval(() => {
              if (budget.pausedUntil!() > this.clock.now()) this.options.onProgress!();
            }, PROGRESS_TICK_MS)
          : undefined;
      waitGauges.budgetWaiting.add(1);
      try {
        const waitStart = this.clock.now();
        release = counted(await budget.acquire(prep.cost, signal));
        this.options.metrics?.budgetWait((this.clock.now() - waitStart) / 1000);
        // a refresh during the wait replaced the token read before it: send the new one, not a refused request;
        // never one this request already sent (a cache a slow read set back to an older token)
        const newer = token === undefined ? undefined : auth?.current?.();
        if (newer !== undefined && !seenTokens.includes(newer)) seenTokens.push((token = newer));
      } catch (error) {
        if (signal?.aborted) throw aborted();
        throw error;
      } finally {
        waitGauges.budgetWaiting.add(-1);
        clearInterval(pauseTick);
      }

      let hop: Hop;
      try {
        hop = await this.follow(url, prep, token, signal);
        if (hop.status < 300 || hop.status === 304) {
          budget.observe?.({ status: hop.status, headers: hop.headers });
          return await onSuccess(hop, release);
        }
      } catch (error) {
        release();
        if (signal?.aborted) throw aborted();
        if (error instanceof ProviderError) throw error;
        const code = networkCode(error);
        const elapsedMs = this.clock.now() - started;
        const decision = decideRetry(
          { kind: 'network', code, attempt, elapsedMs, now: new Date(this.clock.now()), random: this.random },
          retry,
          quirks,
        );
        if (!decision.retry) {
          throw new ProviderError(`${prep.method} ${safeUrl(url)} failed: ${decision.reason}`, {
            code: 'network_error',
            retryable: true,
            cause: error,
          });
        }
        log?.warn({ url: safeUrl(url), attempt, code, waitMs: decision.waitMs }, decision.reason);
        await wait(decision.waitMs);
        continue;
      }

      const body = redactDeep(
        parseBody(await readBody(hop.body, this.options.errorBodyLimit ?? 64 * 1024, false)),
        seenTokens,
      );
      release();
      const details = quirks.classifyError(hop.status, hop.headers, body);
      const reqId = requestIdOf(quirks, hop.headers);
      const fail = (code: ProviderErrorCode, reason: string, retryable: boolean) => {
        const said = details.message ? ` (provider said: ${details.message})` : '';
        const message = redact(`${prep.method} ${safeUrl(hop.finalUrl)} failed: ${reason}${said}`, seenTokens);
        return new ProviderError(message, {
          code,
          retryable,
          status: hop.status,
          providerCode: details.code,
          body,
          requestId: reqId,
        });
      };

      if (token !== undefined && hop.sameOrigin && this.isAuthError(hop.status, body)) {
        if (refreshed || !auth)
          throw fail('auth_rejected', `HTTP ${hop.status}: the token was refused again after a refresh`, false);
        refreshed = true;
        refreshedToken = await auth.refresh(token);
        attempt -= 1; // the refresh is not a retry of a failing provider
        continue;
      }

      const now = this.clock.now();
      const decision = decideRetry(
        {
          kind: 'response',
          status: hop.status,
          headers: hop.headers,
          body,
          attempt,
          elapsedMs: now - started,
          now: new Date(now),
          random: this.random,
        },
        retry,
        quirks,
      );
      budget.observe?.({
        status: hop.status,
        headers: hop.headers,
        waitMs: decision.retry ? decision.waitMs : undefined,
      });
      // Exhausted retries on a transient status may still succeed in a later run.
      if (!decision.retry) throw fail('http_error', decision.reason, details.retryable);
      if (decision.pauseCredential) budget.pause(now + decision.waitMs);
      log?.warn(
        {
          url: safeUrl(hop.finalUrl),
          attempt,
          status: hop.status,
          providerCode: details.code,
          requestId: reqId,
          waitMs: decision.waitMs,
        },
        decision.reason,
      );
      await this.statedWait(decision.waitMs, wait);
    }
  }

  /** Waits what the provider stated (Retry-After), telling the unit it is alive meanwhile. */
  private async statedWait(ms: number, wait: (ms: number) => Promise<void>): Promise<void> {
    const onProgress = this.options.onProgress;
    onProgress?.();
    const tick = onProgress ? setInterval(onProgress, PROGRESS_TICK_MS) : undefined;
    try {
      await wait(ms);
    } finally {
      clearInterval(tick);
      onProgress?.();
    }
  }

  private async follow(
    url: string,
    prep: Prepared,
    token: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Hop> {
    const origin = new URL(url).origin;
    const maxRedirects = this.options.maxRedirects ?? 10;
    let current = new URL(url);
    let method = prep.method;
    let body = prep.body;
    let headers = { ...prep.headers };
    for (let hops = 0; ; hops++) {
      const sameOrigin = current.origin === origin;
      const sent = { ...headers };
      if (sameOrigin && token !== undefined) sent.authorization = `Bearer ${token}`;
      if (!sameOrigin) for (const name of ORIGIN_BOUND_HEADERS) delete sent[name];
      const deadlines = this.options.deadlines;
      const res = await request(current, {
        method: method,
        headers: sent,
        body,
        signal,
        dispatcher: this.options.dispatcher,
        headersTimeout: deadlines?.headersMs ?? DEFAULT_DEADLINE_MS,
        bodyTimeout: deadlines?.bodyGapMs ?? DEFAULT_DEADLINE_MS,
      }).catch((err: unknown) => {
        this.options.metrics?.request('error');
        throw err;
      });
      this.options.metrics?.request(String(res.statusCode));
      this.options.onProgress?.();
      const location = headerString(res.headers, 'location');
      if (!REDIRECTS.has(res.statusCode) || location === undefined) {
        return { status: res.statusCode, headers: res.headers, body: res.body, finalUrl: current.href, sameOrigin };
      }
      await res.body.dump().catch(() => undefined);
      if (hops >= maxRedirects) {
        throw new ProviderError(`${prep.method} ${safeUrl(url)} failed: more than ${maxRedirects} redirects`, {
          code: 'redirect_error',
          retryable: false,
        });
      }
      let next: URL;
      try {
        next = new URL(location, current);
      } catch (cause) {
        throw new ProviderError(`${prep.method} ${safeUrl(current.href)} redirected to an invalid Location`, {
          code: 'redirect_error',
          retryable: false,
          cause,
        });
      }
      // Fetch semantics: 303, and 301/302 after a POST, continue as a GET without a body.
      if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers = { ...headers };
        delete headers['content-type'];
      }
      current = next;
    }
  }
}

/** The budget's release, counting the request in flight until it is called (once, however often). */
function counted(release: Release): Release {
  waitGauges.inFlight.add(1);
  let done = false;
  return () => {
    if (!done) {
      done = true;
      waitGauges.inFlight.add(-1);
    }
    release();
  };
}
