import createFetchClient, { type Client } from 'openapi-fetch';
import { CustodyApiError } from './errors.ts';
import { parseEventStream, type StreamEvent } from './events.ts';
import { paginate, type Page } from './paging.ts';
import { realSleep, retryAfterMs } from './retry.ts';
import type { components, paths } from './schema.ts';
import { Session, type StoredAccessToken, type TokenPair } from './session.ts';

export { CustodyApiError, isErrorBody, type ErrorBody, type OAuthErrorBody } from './errors.ts';
export { parseEventStream, type StreamEvent } from './events.ts';
export { collect, paginate, type Page } from './paging.ts';
export { retryAfterMs } from './retry.ts';
export { Session, type StoredAccessToken, type TokenPair } from './session.ts';
export type { components, operations, paths } from './schema.ts';

export type Schemas = components['schemas'];

export interface CustodyClientOptions {
  /** The service's origin, e.g. `http://127.0.0.1:8080` (empty for the same origin in a browser). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  fetch?: typeof fetch;
  /** Waits between 429 retries; tests pass a recorder instead of the real timer. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Retries of a request answered 429 before the 429 is returned. Default 3. */
  maxRetries?: number;
  /** Wait when a 429 carries no usable Retry-After. Default 1 s. */
  defaultRetryMs?: number;
  /** An access token kept from an earlier session, used while valid (see Session.restore). */
  token?: StoredAccessToken;
  /** Told of every new token pair. */
  onTokens?: (pair: TokenPair, expiresAt: number) => void;
}

export interface CustodyClient {
  /** The typed openapi-fetch client: `api.GET('/v1/workspaces', …)` → `{data, error, response}`. */
  api: Client<paths>;
  session: Session;
  /** Signs in with the client credentials (the first token pair). */
  signIn(): Promise<void>;
  /** The data of a 2xx answer, or throws CustodyApiError carrying the service's error body. */
  ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T>;
  /** Every row of a paged list; `fetchPage` gets the previous page's token and returns `{items, next}`. */
  each<T>(fetchPage: (next: string | undefined) => Promise<Page<T>>): AsyncGenerator<T, void, undefined>;
  /** An authenticated raw fetch (downloads, the event stream), with the same retries. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /**
   * A collection's live events (`GET /v1/collections/{id}/events`) until the stream ends or `signal` aborts;
   * pass the last seen `id` as `lastEventId` to resume where a previous stream stopped.
   */
  events(
    collectionId: string,
    opts?: { lastEventId?: string; signal?: AbortSignal },
  ): AsyncGenerator<StreamEvent, void, undefined>;
}

const TOKEN_PATH = '/v1/oauth/token';

/**
 * A typed client for the Custody API: every call carries a fresh access token (signing in or rotating the refresh
 * token as needed, and once more after a 401), 429 answers are retried after `Retry-After`, and `ok()` turns
 * error answers into CustodyApiError with the service's body.
 */
export function createCustodyClient(opts: CustodyClientOptions): CustodyClient {
  const baseFetch =
    opts.fetch ?? ((input: Request | string | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const sleep = opts.sleep ?? realSleep;
  const now = opts.now ?? Date.now;
  const maxRetries = opts.maxRetries ?? 3;

  /** Sends a request, retrying 429s; `authorize` sets the bearer token before each attempt. */
  async function send(
    request: Request,
    authorize: ((headers: Headers, renew: boolean) => Promise<void>) | null,
  ): Promise<Response> {
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      const req = request.clone();
      if (authorize) await authorize(req.headers, false);
      let res = await baseFetch(req);
      if (res.status === 401 && authorize && !renewed) {
        // The token may have been revoked or expired early: rotate once, then the answer stands.
        renewed = true;
        await res.body?.cancel();
        const again = request.clone();
        await authorize(again.headers, true);
        res = await baseFetch(again);
      }
      if (res.status !== 429 || attempt >= maxRetries) return res;
      await res.body?.cancel();
      await sleep(retryAfterMs(res, now(), opts.defaultRetryMs ?? 1000));
    }
  }

  // No cookies: the bearer token is the only credential. (In a browser this also keeps a 401 carrying
  // `WWW-Authenticate: Basic`, the token endpoint's answer to a wrong secret, from opening a password prompt.)
  const tokenClient = createFetchClient<paths>({
    baseUrl: opts.baseUrl,
    credentials: 'omit',
    fetch: (req: Request) => send(req, null),
  });
  const session = new Session({
    clientId: opts.clientId,
    clientSecret: opts.clientSecret,
    now,
    onTokens: opts.onTokens,
    async requestToken(form) {
      const { data, error, response } = await tokenClient.POST(TOKEN_PATH, {
        body: form,
        bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      if (!data)
        throw new CustodyApiError(response.status, error, response.headers.get('x-correlation-id') ?? undefined);
      return data;
    },
  });

  if (opts.token) session.restore(opts.token);

  const authorize = async (headers: Headers, renew: boolean) => {
    headers.set('authorization', `Bearer ${renew ? await session.renew() : await session.accessToken()}`);
  };
  const api = createFetchClient<paths>({
    baseUrl: opts.baseUrl,
    credentials: 'omit',
    fetch: (req: Request) => send(req, authorize),
  });

  return {
    api,
    session,
    async signIn() {
      await session.signIn();
    },
    async ok(call) {
      const { data, error, response } = await call;
      if (!response.ok)
        throw new CustodyApiError(response.status, error, response.headers.get('x-correlation-id') ?? undefined);
      return data as never;
    },
    each: paginate,
    fetch,
    async *events(collectionId, { lastEventId, signal } = {}) {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const res = await fetch(`/v1/collections/${encodeURIComponent(collectionId)}/events`, { headers, signal });
      if (!res.ok || !res.body)
        throw new CustodyApiError(res.status, await bodyOf(res), res.headers.get('x-correlation-id') ?? undefined);
      yield* parseEventStream(res.body);
    },
  };

  function fetch(path: string, init?: RequestInit): Promise<Response> {
    const url = new URL(path, opts.baseUrl || (globalThis as { location?: { origin: string } }).location?.origin);
    return send(new Request(url, { credentials: 'omit', ...init }), authorize);
  }
}

async function bodyOf(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
