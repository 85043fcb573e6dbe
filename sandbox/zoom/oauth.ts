import type { FastifyInstance, FastifyReply } from 'fastify';
import type { OAuthFailure, TokenSet } from './grants.ts';
import type { Query, SandboxContext } from './http.ts';

export interface OAuthRouteOptions {
  /** When set, authorize and token only accept these redirect URIs (Zoom's allow-list, error 4709). */
  redirectUris?: string[];
}

/**
 * GET /oauth/authorize: an auto-consent page. It redirects at once to `redirect_uri?code=…&state=…`;
 * with `sandbox_deny=1` it redirects with `error=access_denied` as when the user clicks "Decline".
 * POST /oauth/token: authorization_code (PKCE S256 checked when a challenge was given), refresh_token
 * (rotating) and account_credentials; client credentials in a Basic header; parameters in the query or
 * in a form body. POST /oauth/revoke ends the authorization a token belongs to.
 */
export function registerOAuthRoutes(app: FastifyInstance, ctx: SandboxContext, o: OAuthRouteOptions): void {
  app.get('/oauth/authorize', async (req, reply) => {
    const q = req.query as Query;
    if (q.client_id !== ctx.grants.clientId) return errorPage(reply, 'Invalid client_id: 4700');
    const redirect = q.redirect_uri;
    if (!redirect || !isHttpUrl(redirect) || (o.redirectUris && !o.redirectUris.includes(redirect))) {
      return errorPage(reply, 'Invalid redirect: 4709 Redirect URI mismatch');
    }
    if (q.response_type !== 'code')
      return back(reply, redirect, { error: 'unsupported_response_type', state: q.state });
    if (q.sandbox_deny === '1') {
      return back(reply, redirect, {
        error: 'access_denied',
        error_description: 'The user denied the authorization request.',
        state: q.state,
      });
    }
    if (q.code_challenge !== undefined && q.code_challenge_method !== 'S256') {
      return back(reply, redirect, {
        error: 'invalid_request',
        error_description: 'code_challenge_method must be S256',
        state: q.state,
      });
    }
    const code = ctx.grants.issueCode(q.client_id, redirect, q.code_challenge);
    return back(reply, redirect, { code, state: q.state });
  });

  app.post('/oauth/token', async (req, reply) => {
    // Zoom accepts the parameters either as a query string or as a form body.
    const params: Query = { ...(req.query as Query), ...((req.body ?? {}) as Query) };
    const clientProblem = ctx.grants.checkClient(req.headers.authorization);
    if (clientProblem) return oauthError(reply, clientProblem);
    let result: TokenSet | OAuthFailure;
    switch (params.grant_type) {
      case 'authorization_code':
        if (!params.code)
          return oauthError(reply, { status: 400, error: 'invalid_request', reason: 'Invalid authorization code' });
        result = ctx.grants.redeemCode(params.code, params.redirect_uri ?? '', params.code_verifier);
        break;
      case 'refresh_token':
        result = ctx.grants.refreshGrant(params.refresh_token ?? '');
        break;
      case 'account_credentials':
        if (params.account_id !== ctx.tenant.accountId)
          return oauthError(reply, { status: 400, error: 'invalid_request', reason: 'Invalid account_id' });
        result = ctx.grants.accountCredentials();
        break;
      case undefined:
        return oauthError(reply, {
          status: 400,
          error: 'invalid_request',
          reason: 'client id/secret or grant type missing',
        });
      default:
        return oauthError(reply, { status: 400, error: 'unsupported_grant_type', reason: 'Unsupported grant type' });
    }
    if ('error' in result) return oauthError(reply, result);
    return reply.header('Cache-Control', 'no-store').send({ ...result, api_url: ctx.mainOrigin() });
  });

  // Zoom's revoke: client credentials in a Basic header, `token` (access or refresh) in the query or a form body.
  app.post('/oauth/revoke', async (req, reply) => {
    const params: Query = { ...(req.query as Query), ...((req.body ?? {}) as Query) };
    const clientProblem = ctx.grants.checkClient(req.headers.authorization);
    if (clientProblem) return oauthError(reply, clientProblem);
    if (!params.token) return oauthError(reply, { status: 400, error: 'invalid_request', reason: 'token is required' });
    if (!ctx.grants.revokeToken(params.token))
      return oauthError(reply, { status: 400, error: 'invalid_request', reason: 'Invalid Token!' });
    return reply.send({ status: 'success' });
  });
}

function oauthError(reply: FastifyReply, f: OAuthFailure): FastifyReply {
  return reply.code(f.status).type('application/json;charset=UTF-8').send({ reason: f.reason, error: f.error });
}

function back(reply: FastifyReply, redirect: string, params: Record<string, string | undefined>): FastifyReply {
  const url = new URL(redirect);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return reply.code(302).header('Location', url.toString()).send();
}

function errorPage(reply: FastifyReply, message: string): FastifyReply {
  return reply
    .code(400)
    .type('text/html;charset=utf-8')
    .send(`<!DOCTYPE html><html><body><h1>Zoom</h1><p>${message}</p></body></html>`);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
