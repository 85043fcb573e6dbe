// Zoom user OAuth (authorization code + PKCE, rotating refresh tokens). The token endpoint is not a Bearer API
// call, so it is spoken to directly with undici: client credentials in a Basic header, parameters as a form.
import { request, type Dispatcher } from 'undici';
import { invalidInput } from '../../domain/errors.ts';
import { ProviderAuthError, type ConnectorOAuth, type Grant } from '../types.ts';
import { SCOPE_SETS } from './scopes.ts';
import { GrantRevokedError } from '../../domain/run-failures.ts';

export interface ZoomOAuthConfig {
  clientId: string;
  clientSecret: string;
  oauthUrl: string;
  apiUrl: string;
  userAgent: string;
  dispatcher?: Dispatcher;
  now?: () => Date;
}

interface TokenResponse {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
  token_type?: string;
  api_url?: string;
}

type TokenResult = { ok: true; body: TokenResponse } | { ok: false; status: number; error: string; reason: string };

const TIMEOUT_MS = 30_000;
const REFRESH_ATTEMPTS = 3;

export function createZoomOAuth(cfg: ZoomOAuthConfig): ConnectorOAuth {
  const now = cfg.now ?? (() => new Date());

  const toGrant = (body: TokenResponse, previous?: Grant): Grant => {
    if (!body.access_token) throw new Error("Zoom's token endpoint answered without an access_token");
    const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    return {
      ...previous,
      access_token: body.access_token,
      // Zoom rotates refresh tokens: the one just spent is dead, the answer carries its replacement.
      refresh_token: body.refresh_token ?? previous?.refresh_token,
      expires_at: new Date(now().getTime() + expiresIn * 1000).toISOString(),
      scope: body.scope ?? previous?.scope,
      token_type: body.token_type ?? 'bearer',
      ...(body.api_url ? { api_url: body.api_url } : {}),
    };
  };

  return {
    authorizationResponse: 'redirect',
    scopes: SCOPE_SETS,

    authorizationUrl({ state, redirectUri, codeChallenge, scopesType }) {
      if (scopesType !== undefined && !(scopesType in SCOPE_SETS)) {
        throw invalidInput(`scopes_type must be one of ${Object.keys(SCOPE_SETS).join(', ')}.`, 'scopes_type');
      }
      // No `scope` parameter: Zoom grants the scopes configured on the Marketplace app (see scopes.ts).
      const params = new URLSearchParams({
        response_type: 'code',
        client_id: cfg.clientId,
        redirect_uri: redirectUri,
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      });
      return `${cfg.oauthUrl}/oauth/authorize?${params.toString()}`;
    },

    async completeCallback({ query, redirectUri, codeVerifier }) {
      const code = query.code;
      if (!code) throw new ProviderAuthError('invalid_request', 'Zoom redirected back without an authorization code.');
      // Zoom's codes live 5 minutes: exchanged at once.
      const result = await tokenCall(cfg, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: codeVerifier,
      });
      if (!result.ok) {
        if (result.status >= 500) throw new Error(`Zoom's token endpoint failed with HTTP ${result.status}`);
        throw new ProviderAuthError(
          result.error || 'invalid_grant',
          result.reason || 'Zoom refused the authorization code.',
        );
      }
      const grant = toGrant(result.body);
      return { ...grant, ...(await whoAmI(cfg, grant.access_token!)) };
    },

    async refresh(grant) {
      if (!grant.refresh_token) throw new GrantRevokedError('the stored Zoom grant has no refresh token');
      let last: unknown;
      for (let attempt = 1; attempt <= REFRESH_ATTEMPTS; attempt++) {
        let result: TokenResult;
        try {
          result = await tokenCall(cfg, { grant_type: 'refresh_token', refresh_token: grant.refresh_token });
        } catch (err) {
          last = err;
          await delay(attempt * 500);
          continue;
        }
        if (result.ok) return toGrant(result.body, grant);
        if (result.error === 'invalid_grant') {
          throw new GrantRevokedError(
            `Zoom refused the refresh token (${result.reason || 'invalid_grant'}); pair the collection again`,
          );
        }
        if (result.status < 500 && result.status !== 429) {
          throw new Error(
            `Zoom's token endpoint refused the refresh: ${result.error || `HTTP ${result.status}`} ${result.reason}`.trim(),
          );
        }
        last = new Error(`Zoom's token endpoint failed with HTTP ${result.status}`);
        await delay(attempt * 500);
      }
      throw last instanceof Error ? last : new Error('Zoom token refresh failed');
    },

    /**
     * `POST {ZOOM_OAUTH_URL}/oauth/revoke` with the app's Basic credentials and `token` as a form field: Zoom ends
     * the user authorization the token belongs to, refresh token included, and answers `{"status":"success"}`. The
     * access token is sent first; when Zoom refuses it (expired), the refresh token.
     */
    async revoke(grant) {
      const tokens = [grant.access_token, grant.refresh_token].filter((t): t is string => typeof t === 'string');
      if (tokens.length === 0) throw new Error('the stored Zoom grant holds no token to revoke');
      let refused = '';
      for (const token of tokens) {
        const result = await tokenCall(cfg, { token }, '/oauth/revoke');
        if (result.ok) return;
        // Not Zoom's `reason`: Zoom's OAuth reasons may quote the token they refuse.
        refused = `Zoom refused the revocation: HTTP ${result.status}${/^[a-z_]{1,40}$/.test(result.error) ? ` ${result.error}` : ''}`;
        if (result.status >= 500 || result.status === 429) break;
      }
      throw new Error(refused);
    },
  };
}

async function tokenCall(
  cfg: ZoomOAuthConfig,
  form: Record<string, string>,
  path = '/oauth/token',
): Promise<TokenResult> {
  const basic = Buffer.from(`${cfg.clientId}:${cfg.clientSecret}`).toString('base64');
  const res = await request(`${cfg.oauthUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${basic}`,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      'user-agent': cfg.userAgent,
    },
    body: new URLSearchParams(form).toString(),
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    dispatcher: cfg.dispatcher,
  });
  const text = (await res.body.text()).slice(0, 64 * 1024);
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // A gateway's HTML error page: the status decides.
  }
  if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, body: body };
  // Zoom's token errors are {reason, error}; never echo anything else (the body could hold a token).
  const str = (v: unknown) => (typeof v === 'string' ? v.slice(0, 200) : '');
  return {
    ok: false,
    status: res.statusCode,
    error: str(body.error),
    reason: str(body.reason) || str(body.error_description),
  };
}

/** The consenting user's account facts (non-secret): best effort, a pairing does not fail for want of them. */
async function whoAmI(cfg: ZoomOAuthConfig, accessToken: string): Promise<Record<string, string>> {
  try {
    const res = await request(`${cfg.apiUrl}/users/me`, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'user-agent': cfg.userAgent },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      dispatcher: cfg.dispatcher,
    });
    const body = (await res.body.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.statusCode !== 200) return {};
    const out: Record<string, string> = {};
    if (typeof body.account_id === 'string') out.account_id = body.account_id;
    if (typeof body.id === 'string') out.zoom_user_id = body.id;
    if (typeof body.email === 'string') out.zoom_user_email = body.email;
    return out;
  } catch {
    return {};
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
