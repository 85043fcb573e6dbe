import type { FastifyReply, FastifyRequest } from 'fastify';
import { take, type ZoomFaults } from './faults.ts';
import type { GrantStore } from './grants.ts';
import type { PageTokens } from './paging.ts';
import { nextUtcMidnight, type RateCategory, type RateLimiter } from './rate-limits.ts';
import type { ZoomTenant } from './tenant.ts';
import type { ZoomVariance } from './variance.ts';

/** Everything a route needs; one per sandbox. */
export interface SandboxContext {
  tenant: ZoomTenant;
  grants: GrantStore;
  faults: ZoomFaults;
  limiter: RateLimiter;
  pages: PageTokens;
  now: () => Date;
  /** http://127.0.0.1:PORT of the main listener (OAuth, API, download_url). */
  mainOrigin: () => string;
  /** http://127.0.0.1:PORT of the file host the download URLs redirect to. */
  filesOrigin: () => string;
  signingKey: Buffer;
  /** The variance profile, when the sandbox was started with one. */
  variance?: ZoomVariance;
  /** Origin download_url points at: the main listener, or (variance) a host under the OAuth host's domain. */
  downloadUrlOrigin: () => string;
}

export interface RouteSpec {
  category: RateCategory;
  /** Any one of these grants access; the first (granular, admin) is the one named in scope errors. */
  scopes: string[];
}

export interface Principal {
  userId: string;
  accessToken: string;
}

export type Query = Record<string, string | undefined>;

export function zoomError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).type('application/json;charset=UTF-8').send({ code, message });
}

/**
 * Runs, in order: injected faults, bearer authentication, scope check, rate limits.
 * Returns the caller, or undefined when the response has already been produced.
 */
export function guard(
  ctx: SandboxContext,
  req: FastifyRequest,
  reply: FastifyReply,
  spec: RouteSpec,
): Principal | undefined {
  const { faults } = ctx;
  if (take(faults, 'resetConnections')) {
    reply.hijack();
    req.raw.socket.destroy();
    return undefined;
  }
  if (faults.serverErrors > 0) {
    const odd = faults.serverErrors % 2 === 1;
    take(faults, 'serverErrors');
    if (odd) zoomError(reply, 500, 500, 'Internal Error');
    else
      reply.code(503).type('text/html').send('<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
    return undefined;
  }
  if (take(faults, 'rate429Storm')) {
    tooMany(ctx, reply, spec.category, { limited: true, type: 'QPS', limit: ctx.limiter.qps(spec.category) });
    return undefined;
  }
  if (take(faults, 'dailyLimit429')) {
    const limit = ctx.limiter.dailyLimit();
    tooMany(ctx, reply, spec.category, {
      limited: true,
      type: 'Daily-limit',
      limit,
      retryAt: nextUtcMidnight(ctx.now()),
    });
    return undefined;
  }
  const query = req.query as Query;
  // Since 2023-02-14 tokens in query strings are refused with code 124.
  if (query.access_token !== undefined) {
    zoomError(reply, 401, 124, 'Invalid access token.');
    return undefined;
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!bearer) {
    zoomError(reply, 401, 124, 'Invalid access token.');
    return undefined;
  }
  const check = ctx.grants.checkAccess(bearer);
  if (!check.ok) {
    zoomError(reply, 401, 124, check.message);
    return undefined;
  }
  if (take(faults, 'expireAccessTokens')) {
    zoomError(reply, 401, 124, 'Access token is expired.');
    return undefined;
  }
  const granted = check.scopes.filter((s) => !faults.missingScopes.includes(s));
  if (!spec.scopes.some((s) => granted.includes(s))) {
    if (faults.scopeErrorAs401) zoomError(reply, 401, 124, 'Invalid access token.');
    else zoomError(reply, 400, 4711, `Invalid access token, does not contain scopes:[${spec.scopes[0]}].`);
    return undefined;
  }
  const verdict = ctx.limiter.admit(spec.category);
  if (verdict.limited) {
    tooMany(ctx, reply, spec.category, verdict);
    return undefined;
  }
  return { userId: check.userId, accessToken: bearer };
}

type Limited =
  | { limited: true; type: 'QPS'; limit: number }
  | { limited: true; type: 'Daily-limit'; limit: number; retryAt: string };

export function tooMany(ctx: SandboxContext, reply: FastifyReply, category: RateCategory, v: Limited): void {
  reply.header('X-RateLimit-Category', category);
  reply.header('X-RateLimit-Limit', String(v.limit));
  reply.header('X-RateLimit-Remaining', '0');
  if (!ctx.faults.omitRateLimitHeaders) {
    reply.header('X-RateLimit-Type', v.type);
    if (v.type === 'QPS') {
      reply.header('X-RateLimit-Reset', String(Math.floor(Date.now() / 1000) + 1));
      reply.header('Retry-After', '1');
    } else {
      // Daily limit: Retry-After is an ISO-8601 date-time, not a number of seconds.
      reply.header('Retry-After', v.retryAt);
    }
  }
  const message =
    v.type === 'QPS'
      ? 'You have reached the maximum per-second rate limit for this API. Try again later.'
      : 'You have reached the maximum daily rate limit for this API. Refer to the response header for details on when you can make another request.';
  zoomError(reply, 429, 429, message);
}

/** `userId` path values: an id, an email, or `me` (the consenting user). */
export function resolveUser(ctx: SandboxContext, who: Principal, userId: string) {
  return ctx.tenant.findUser(userId === 'me' ? who.userId : userId);
}

export function userNotFound(reply: FastifyReply, userId: string): FastifyReply {
  return zoomError(reply, 404, 1001, `User does not exist: ${userId}.`);
}

/** A missing meeting-level resource: code 3301 / 3001 by default, any of the variance profile's 404s with it. */
export function missing(
  ctx: SandboxContext,
  reply: FastifyReply,
  what: string,
  resource: string,
  code: number,
  message: string,
): FastifyReply {
  if (ctx.variance) return ctx.variance.notFound(reply, what, resource);
  return zoomError(reply, 404, code, message);
}

/**
 * The meeting reference of /v2/meetings/{ref}/…, read from the raw URL. Zoom's gateway decodes the path once
 * before routing, so a UUID that starts with `/` or contains `//` only survives if it was encoded twice; a
 * single-encoded one is misrouted (404). Returns undefined in that case.
 */
export function meetingRef(rawUrl: string): string | undefined {
  const path = rawUrl.split('?')[0];
  const match = /^\/v2\/meetings\/([^/]+)\/[a-z_]+$/.exec(path);
  if (!match) return undefined;
  try {
    const once = decodeURIComponent(match[1]);
    if (once.startsWith('/') || once.includes('//')) return undefined;
    return once.includes('%') ? decodeURIComponent(once) : once;
  } catch {
    return undefined;
  }
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** `yyyy-mm-dd` (UTC) → epoch ms of its midnight; undefined when malformed. */
export function parseDate(value: string): number | undefined {
  if (!DATE.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value ? undefined : ms;
}

/** `yyyy-MM-dd'T'HH:mm:ss'Z'` → epoch ms; undefined when malformed. */
export function parseDateTime(value: string): number | undefined {
  if (!DATE_TIME.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
