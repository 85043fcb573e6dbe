import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, startTestApp, type TestApp } from '../support/app.ts';

/**
 * The token endpoint as a standard OAuth 2.0 client library sees it (openid-client, on oauth4webapi): RFC 8414
 * discovery, client_secret_basic and client_secret_post, refresh rotation and reuse detection, RFC 6749 §5.2 and
 * RFC 6750 §3 errors. Expectations come from those RFCs, not from Custody's code.
 */
describe('OAuth 2.0 authorization server, through openid-client', () => {
  let t: TestApp;
  let proxied: TestApp;
  const ISSUER = 'https://custody.example';
  // A TLS-terminating reverse proxy at ISSUER in front of the test server.
  const viaTls: oidc.CustomFetch = (url, options) => {
    const u = new URL(url);
    expect(u.origin).toBe(ISSUER);
    return fetch(`${t.url}${u.pathname}${u.search}`, options);
  };
  const discover = async (clientId: string, auth: oidc.ClientAuth) => {
    const config = await oidc.discovery(new URL(ISSUER), clientId, undefined, auth, {
      algorithm: 'oauth2',
      [oidc.customFetch]: viaTls,
    });
    config[oidc.customFetch] = viaTls;
    return config;
  };

  beforeAll(async () => {
    t = await startTestApp({ workers: false, env: { PUBLIC_URL: `${ISSUER}/`, RATE_LIMIT_TOKEN_PER_MINUTE: '5' } });
    // Behind a reverse proxy at a path prefix: https://custody.example/custody -> this server's /.
    proxied = await startTestApp({ workers: false, env: { PUBLIC_URL: 'https://custody.example/custody/' } });
  });
  afterAll(async () => {
    await t?.close();
    await proxied?.close();
  });

  const basic = async (account: string) => {
    const c = await t.client(account);
    return { c, config: await discover(c.clientId, oidc.ClientSecretBasic(c.clientSecret)) };
  };
  /**
   * What the library makes of a refusal: a ResponseBodyError (an RFC 6749 error body), or, when the answer carries a
   * WWW-Authenticate challenge (the 401 of invalid_client), a WWWAuthenticateChallengeError with the response.
   */
  const rejection = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    if (err instanceof oidc.WWWAuthenticateChallengeError) {
      const body = (await err.response.json()) as { error?: string };
      return { status: err.status, error: body.error, headers: err.response.headers, challenges: err.cause };
    }
    expect(err, 'the request should have failed with an OAuth error').toBeInstanceOf(oidc.ResponseBodyError);
    const e = err as oidc.ResponseBodyError;
    return { status: e.status, error: e.error, headers: e.response.headers, challenges: [] };
  };

  it('publishes RFC 8414 metadata whose issuer is PUBLIC_URL without a trailing slash', async () => {
    const { c, config } = await basic('meta-co');
    const meta = config.serverMetadata();
    // PUBLIC_URL was given with a trailing slash; the issuer has none (and the library checked it matches exactly)
    expect(meta.issuer).toBe(ISSUER);
    expect(meta.token_endpoint).toBe(`${ISSUER}/v1/oauth/token`);
    expect(meta.grant_types_supported).toEqual(expect.arrayContaining(['client_credentials', 'refresh_token']));
    expect(meta.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
    );
    expect(c.clientId).toBeTruthy();
  });

  it('serves the path form of the metadata URL when PUBLIC_URL has a path, and the discovered endpoint works', async () => {
    const c = await proxied.client('proxied-co');
    const seen: string[] = [];
    // The proxy: the host's well-known URL and everything under /custody reach the server, the prefix stripped.
    const viaProxy: oidc.CustomFetch = (url, options) => {
      const u = new URL(url);
      seen.push(u.pathname);
      const path = u.pathname.startsWith('/custody/') ? u.pathname.slice('/custody'.length) : u.pathname;
      return fetch(`${proxied.url}${path}${u.search}`, options);
    };
    const config = await oidc.discovery(
      new URL('https://custody.example/custody'),
      c.clientId,
      undefined,
      oidc.ClientSecretPost(c.clientSecret),
      {
        algorithm: 'oauth2',
        [oidc.customFetch]: viaProxy,
      },
    );
    expect(seen[0]).toBe('/.well-known/oauth-authorization-server/custody');
    expect(config.serverMetadata().issuer).toBe('https://custody.example/custody');
    expect(config.serverMetadata().token_endpoint).toBe('https://custody.example/custody/v1/oauth/token');
    config[oidc.customFetch] = viaProxy;
    const tokens = await oidc.clientCredentialsGrant(config);
    expect(seen.at(-1)).toBe('/custody/v1/oauth/token');
    expect((await proxied.call(tokens.access_token, 'GET', '/v1/workspaces')).status).toBe(200);
  });

  it('issues tokens to client_secret_basic and client_secret_post clients alike', async () => {
    const { config } = await basic('basic-co');
    const viaBasic = await oidc.clientCredentialsGrant(config);
    expect(viaBasic.token_type).toBe('bearer');
    expect((await t.call(viaBasic.access_token, 'GET', '/v1/workspaces')).status).toBe(200);
    const c = await t.client('post-co');
    const post = await discover(c.clientId, oidc.ClientSecretPost(c.clientSecret));
    const viaPost = await oidc.clientCredentialsGrant(post);
    expect((await t.call(viaPost.access_token, 'GET', '/v1/workspaces')).status).toBe(200);
  });

  it('rotates refresh tokens, and a rotated one presented again revokes the family (invalid_token on its access token)', async () => {
    const { config } = await basic('rotate-co');
    const first = await oidc.clientCredentialsGrant(config);
    const second = await oidc.refreshTokenGrant(config, first.refresh_token!);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const api = new URL(`${ISSUER}/v1/workspaces`);
    expect((await oidc.fetchProtectedResource(config, second.access_token, api, 'GET')).status).toBe(200);

    const reuse = await rejection(oidc.refreshTokenGrant(config, first.refresh_token!));
    expect(reuse.error).toBe('invalid_grant');
    expect(reuse.status).toBe(400);
    // The whole family is gone: the newest refresh token and the newest access token.
    expect((await rejection(oidc.refreshTokenGrant(config, second.refresh_token!))).error).toBe('invalid_grant');
    const denied = await oidc.fetchProtectedResource(config, second.access_token, api, 'GET').then(
      () => null,
      (e: unknown) => e,
    );
    expect(denied).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
    const [challenge] = (denied as oidc.WWWAuthenticateChallengeError).cause;
    expect(challenge?.scheme).toBe('bearer');
    expect(challenge?.parameters.error).toBe('invalid_token');
  });

  it('answers a request without a token with a bare Bearer challenge (RFC 6750 §3.1: no error code)', async () => {
    const res = await fetch(`${t.url}/v1/workspaces`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers RFC 6749 §5.2 errors', async () => {
    const c = await t.client('errors-co');
    const wrong = await discover(c.clientId, oidc.ClientSecretBasic('not-the-secret'));
    const invalidClient = await rejection(oidc.clientCredentialsGrant(wrong));
    expect([invalidClient.status, invalidClient.error]).toEqual([401, 'invalid_client']);
    expect(invalidClient.challenges.map((c) => c.scheme)).toEqual(['basic']);

    const right = await discover(c.clientId, oidc.ClientSecretBasic(c.clientSecret));
    const password = await rejection(oidc.genericGrantRequest(right, 'password', { username: 'u', password: 'p' }));
    expect([password.status, password.error]).toEqual([400, 'unsupported_grant_type']);
    expect((await rejection(oidc.refreshTokenGrant(right, 'no-such-token'))).error).toBe('invalid_grant');

    // What a library never sends: requests built by hand.
    const basicHeader = `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString('base64')}`;
    const token = (body: string, headers: Record<string, string>) =>
      fetch(`${t.url}/v1/oauth/token`, { method: 'POST', body, headers });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const noGrant = await token('', { ...form, authorization: basicHeader });
    expect([noGrant.status, (await jsonOf(noGrant)).error]).toEqual([400, 'invalid_request']);
    const both = await token(
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: c.clientId,
        client_secret: c.clientSecret,
      }).toString(),
      {
        ...form,
        authorization: basicHeader,
      },
    );
    expect([both.status, (await jsonOf(both)).error]).toEqual([400, 'invalid_request']);
    const asJson = await token(
      JSON.stringify({ grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret }),
      { 'content-type': 'application/json' },
    );
    expect([asJson.status, (await jsonOf(asJson)).error]).toEqual([400, 'invalid_request']);
  });

  it('keys the rate limit and the audit on the client id sent with HTTP Basic', async () => {
    const { c, config } = await basic('limit-co');
    const issued = await oidc.clientCredentialsGrant(config);
    const wrong = await discover(c.clientId, oidc.ClientSecretBasic('wrong'));
    // RATE_LIMIT_TOKEN_PER_MINUTE=5 here; discovery itself is not counted
    for (let i = 0; i < 4; i++) expect((await rejection(oidc.clientCredentialsGrant(wrong))).status).toBe(401);
    // RFC 6749 has no error code for it: the 429 is the API's (spec: Retry-After), which the library hands over as is
    const limited = await oidc.clientCredentialsGrant(config).then(
      () => null,
      (e: unknown) => e,
    );
    expect(limited).toBeInstanceOf(oidc.ClientError);
    const response = (limited as oidc.ClientError).cause as Response;
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    // another client keeps its own budget
    expect((await oidc.clientCredentialsGrant((await basic('limit-other')).config)).access_token).toBeTruthy();

    const audit = await jsonOf(await t.call(issued.access_token, 'GET', '/v1/audit?limit=50'), 200);
    const tokenEntries = (audit.items as Array<{ action: string; client_id: string; outcome: string }>).filter(
      (e) => e.action === 'token.issue',
    );
    expect(tokenEntries.filter((e) => e.outcome === 'success').map((e) => e.client_id)).toEqual([c.clientId]);
    expect(tokenEntries.filter((e) => e.outcome === 'failure')).toHaveLength(4);
  });
});
