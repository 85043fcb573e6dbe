// A thin typed layer over ProviderHttp for Zoom REST API v2: URL building, UUID encoding, error classification
// and next_page_token paging with Zoom's 15-minute token expiry.
import { type ProviderHttp } from '../../provider/provider-http.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import type { ZoomPage } from './wire.ts';
import { NeedsUserActionError } from '../../domain/run-failures.ts';

export type Query = Record<string, string | number | boolean | undefined>;

export class ZoomApi {
  constructor(
    readonly http: ProviderHttp,
    private readonly baseUrl: string,
    private readonly signal?: AbortSignal,
  ) {}

  /** `path` is already encoded (see userPath, meetingPath). */
  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.http.json<T>(this.url(path, query), { signal: this.signal });
  }

  /** The same API, its requests also given up when `signal` aborts. */
  withSignal(signal: AbortSignal): ZoomApi {
    return new ZoomApi(this.http, this.baseUrl, this.signal ? AbortSignal.any([this.signal, signal]) : signal);
  }

  url(path: string, query: Query = {}): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
    const qs = params.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }
}

export function userPath(userId: string, rest = ''): string {
  return `/users/${encodeURIComponent(userId)}${rest}`;
}

export function chatUserPath(userId: string, rest: string): string {
  return `/chat/users/${encodeURIComponent(userId)}${rest}`;
}

/**
 * Zoom's gateway decodes a path once before routing: a meeting UUID that starts with `/` or contains `//` must
 * be encoded twice, or it is misrouted (404). Other UUIDs (they hold `+` and `=`) are encoded once.
 */
export function encodeMeetingUuid(uuid: string): string {
  const once = encodeURIComponent(uuid);
  return uuid.startsWith('/') || uuid.includes('//') ? encodeURIComponent(once) : once;
}

export function meetingPath(uuid: string, rest: string): string {
  return `/meetings/${encodeMeetingUuid(uuid)}${rest}`;
}

function zoomCode(err: unknown): number | undefined {
  if (!(err instanceof ProviderError)) return undefined;
  const code = Number(err.providerCode);
  return Number.isFinite(code) ? code : undefined;
}

/** 404 code 1001 "User does not exist" (deleted), or 400/404 code 1010 "User not found on this account". */
export function isUserGone(err: unknown): boolean {
  return (
    err instanceof ProviderError &&
    (err.status === 404 || err.status === 400) &&
    [1001, 1010].includes(zoomCode(err) ?? 0)
  );
}

/** 404 with a "no such meeting / summary / recording" code (3001, 3301). */
export function isMissing(err: unknown): boolean {
  return err instanceof ProviderError && err.status === 404 && [3001, 3301].includes(zoomCode(err) ?? 0);
}

/**
 * A failure of one piece (a file, a summary, a page): neither refused credentials or scopes (they concern every
 * request), nor an abort, nor a deleted user (that stops the custodian).
 */
export function isPieceFailure(err: unknown): err is ProviderError {
  if (!(err instanceof ProviderError) || err.code === 'auth_rejected' || err.code === 'aborted') return false;
  return !isUserGone(err) && asScopeError(err, '') === undefined;
}

/** 400 code 300 "The next page token is either invalid or has expired." */
export function isPageTokenRefused(err: unknown): boolean {
  return err instanceof ProviderError && err.status === 400 && zoomCode(err) === 300 && /page token/i.test(err.message);
}

/**
 * The grant lacks a scope the request needs: Zoom answers 400 code 4711, or 401 code 124, which ProviderHttp
 * reports as `auth_rejected` once a refreshed token was refused as well. Nothing but a change to the Zoom app's
 * scopes and a new pairing helps: the engine moves the collection to `error` with this message (naming the
 * scope) instead of retrying. The grant itself still works, so it is not a GrantRevokedError.
 */
export class ZoomScopeError extends NeedsUserActionError {
  override name = 'ZoomScopeError';
}

export function asScopeError(err: unknown, what: string): ZoomScopeError | undefined {
  if (!(err instanceof ProviderError)) return undefined;
  const code = zoomCode(err);
  if (err.status === 400 && code === 4711) {
    const scopes = /scopes:\s*\[([^\]]*)\]/.exec(err.message)?.[1];
    const detail = scopes ? `it lacks the scope ${scopes}` : 'it lacks a required scope';
    return new ZoomScopeError(
      `Zoom refused ${what}: ${detail}. Add it to the Zoom app, then pair the collection again.`,
      { cause: err },
    );
  }
  if (err.code === 'auth_rejected') {
    return new ZoomScopeError(
      `Zoom refused ${what} even with a freshly refreshed token (401 code 124): the grant most likely lacks the scope this ` +
        "request needs. Check the Zoom app's scopes, then pair the collection again.",
      { cause: err },
    );
  }
  return undefined;
}

/** Runs a request; a scope error becomes a ZoomScopeError naming what was being done. */
export async function scoped<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw asScopeError(err, what) ?? err;
  }
}

/** A page of a listing still to be fetched: Zoom's token and when it was issued (epoch ms). */
export interface PageMark {
  token: string;
  at: number;
}

/** Zoom's tokens live 15 minutes; one older than this is not worth trying after a resume. */
export const PAGE_TOKEN_USABLE_MS = 14 * 60_000;
const MAX_RESTARTS = 3;

/** A page asked for ahead of its turn, and when Zoom answered it (its next_page_token's 15 minutes run from then). */
export interface EarlyPage<T> {
  page: T;
  at: number;
}

/** The first page of a listing, asked for now (pages() takes it as `first` when the listing's turn comes). */
export async function firstPage<T extends ZoomPage>(
  api: ZoomApi,
  what: string,
  path: string,
  query: Query,
  now: () => number,
): Promise<EarlyPage<T>> {
  const page = await scoped(what, () => api.get<T>(path, { ...query, next_page_token: undefined }));
  return { page, at: now() };
}

/**
 * Walks a paged listing from `resume` (or the first page: `first` when it was asked for ahead, see firstPage()).
 * When Zoom refuses a page token as expired or invalid, the listing starts over from its first page (items
 * already seen are yielded again; the engine skips them as unchanged). Each page comes with the mark of the page
 * after it (null on the last page).
 */
export async function* pages<T extends ZoomPage>(
  api: ZoomApi,
  what: string,
  path: string,
  query: Query,
  resume: PageMark | null,
  now: () => number,
  first?: Promise<EarlyPage<T>>,
): AsyncGenerator<{ page: T; next: PageMark | null }> {
  let token = resume && now() - resume.at < PAGE_TOKEN_USABLE_MS ? resume.token : undefined;
  let early = token === undefined ? first : undefined;
  let restarts = 0;
  for (;;) {
    let page: T;
    let issuedAt: number;
    try {
      const taken = early && (await early);
      early = undefined;
      // A first page that waited for its turn longer than its token lives is asked for again (its items would
      // otherwise come twice, after a request with a token Zoom already let expire).
      if (taken && (!taken.page?.next_page_token || now() - taken.at < PAGE_TOKEN_USABLE_MS)) {
        ({ page, at: issuedAt } = taken);
      } else {
        page = await scoped(what, () => api.get<T>(path, { ...query, next_page_token: token }));
        issuedAt = now();
      }
    } catch (err) {
      if (token === undefined || !isPageTokenRefused(err) || restarts >= MAX_RESTARTS) throw err;
      restarts += 1;
      token = undefined;
      continue;
    }
    const next = page?.next_page_token ? { token: page.next_page_token, at: issuedAt } : null;
    yield { page: page ?? ({} as T), next };
    if (!next) return;
    token = next.token;
  }
}
