import type { FastifyRequest } from 'fastify';
import type { App } from '../app.ts';
import type { Caller, ServiceTokens } from '../auth/service-tokens.ts';
import { AppError, unauthorized } from './errors.ts';
import type { Bucket, RateLimits } from './rate-limits.ts';
import { sendError } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** false: no bearer token needed (token endpoint, OAuth callbacks, health, docs). Default true. */
    auth?: boolean;
    /** Which per-token budget the route spends; 'none' for legal holds. Default 'default'. */
    rateLimit?: Exclude<Bucket, 'token'> | 'none';
    /** Errors in RFC 6749 §5.2 form instead of the error shape (the token endpoint). */
    oauthErrors?: boolean;
    /** Reads form bodies (application/x-www-form-urlencoded): the token endpoint only; every other route answers them 415. */
    forms?: boolean;
  }
}

export function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/**
 * Authentication, then the per-token rate limit. A request without a valid token gets its 401 and is not
 * counted (spec: requests without a token are not rate limited).
 */
export function installAuth(app: App, deps: { tokens: ServiceTokens; limits: RateLimits; docsUrl: string }) {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (req, reply) => {
    const cfg = req.routeOptions.config;
    // Only the /v1 API is authenticated; health, readiness and the docs page are public.
    if (!req.routeOptions.url?.startsWith('/v1/') || cfg?.auth === false) return;
    const token = bearerToken(req);
    const caller = token ? await deps.tokens.verify(token) : null;
    if (!caller) {
      // RFC 6750 §3: no credentials get the bare challenge; a token that was sent but is not (or no longer) valid, invalid_token.
      reply.header(
        'WWW-Authenticate',
        token
          ? 'Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked"'
          : 'Bearer',
      );
      return sendError(
        req,
        reply,
        unauthorized(token ? 'The access token is invalid, expired or revoked.' : undefined),
        deps.docsUrl,
      );
    }
    req.caller = caller;
    const bucket = cfg?.rateLimit ?? 'default';
    if (bucket === 'none') return;
    const res = await deps.limits.consume(bucket, caller.tokenKey);
    if (!res.allowed) return sendTooMany(req, reply, res.resetSeconds, deps.docsUrl);
    reply
      .header('RateLimit-Limit', res.limit)
      .header('RateLimit-Remaining', res.remaining)
      .header('RateLimit-Reset', res.resetSeconds);
  });
}

export function sendTooMany(
  req: FastifyRequest,
  reply: import('fastify').FastifyReply,
  retryAfter: number,
  docsUrl: string,
) {
  const err = new AppError(
    429,
    `Rate limit exceeded. Wait ${retryAfter} seconds (the Retry-After header) and retry.`,
    undefined,
    {
      'Retry-After': String(retryAfter),
    },
  );
  return sendError(req, reply, err, docsUrl);
}
