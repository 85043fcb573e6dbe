import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createZoomConnector } from '../../src/connectors/zoom/index.ts';
import { DEFAULT_SCOPES, PRESERVATION_SCOPES } from '../../src/connectors/zoom/scopes.ts';
import { ProviderAuthError, type Connector } from '../../src/connectors/types.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { startZoomSandbox, ZOOM_SANDBOX_SCOPES, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { pkcePair } from '../../sandbox/zoom/testing.ts';
import { pair, REDIRECT_URI, testConnector } from './zoom-harness.ts';
import { GrantRevokedError } from '../../src/domain/run-failures.ts';

let sandbox: ZoomSandbox;
let connector: Connector;

beforeAll(async () => {
  sandbox = await startZoomSandbox({ seed: 2, users: 3, meetingsPerUser: 1 });
  connector = testConnector(sandbox);
});

afterAll(async () => {
  await sandbox?.close();
});

describe('zoom oauth', () => {
  it("builds Zoom's authorize URL with PKCE S256 and no secret", () => {
    const url = new URL(
      connector.oauth.authorizationUrl({ state: 's1', redirectUri: REDIRECT_URI, codeChallenge: 'ch' }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(`${sandbox.oauthUrl}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: sandbox.clientId,
      redirect_uri: REDIRECT_URI,
      state: 's1',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
    expect(url.href).not.toContain(sandbox.clientSecret);
    expect(connector.oauth.authorizationResponse).toBe('redirect');
  });

  it('documents a default and a preservation scope set; the sandbox grants every scope the default set needs', () => {
    expect(connector.oauth.scopes.default).toEqual([...DEFAULT_SCOPES]);
    expect(connector.oauth.scopes.preservation).toEqual([...PRESERVATION_SCOPES]);
    for (const s of DEFAULT_SCOPES) expect(PRESERVATION_SCOPES).toContain(s);
    for (const s of DEFAULT_SCOPES) expect(ZOOM_SANDBOX_SCOPES).toContain(s);
    expect(
      connector.oauth.authorizationUrl({
        state: 's',
        redirectUri: REDIRECT_URI,
        codeChallenge: 'c',
        scopesType: 'preservation',
      }),
    ).toContain('/oauth/authorize?');
    expect(() =>
      connector.oauth.authorizationUrl({
        state: 's',
        redirectUri: REDIRECT_URI,
        codeChallenge: 'c',
        scopesType: 'everything',
      }),
    ).toThrow(DomainError);
  });

  it('exchanges the code at once and keeps the grant with its expiry, scopes and account facts', async () => {
    const before = Date.now();
    const grant = await pair(connector);
    expect(grant.access_token).toEqual(expect.any(String));
    expect(grant.refresh_token).toEqual(expect.any(String));
    expect(Date.parse(grant.expires_at!)).toBeGreaterThan(before + 3500_000);
    expect(String(grant.scope).split(' ')).toEqual(ZOOM_SANDBOX_SCOPES);
    expect(grant).toMatchObject({
      account_id: sandbox.tenant.accountId,
      zoom_user_id: sandbox.tenant.owner.id,
      zoom_user_email: sandbox.tenant.owner.email,
    });
    // Basic client authentication at the token endpoint, bearer on the API.
    const token = sandbox.requests.filter((r) => r.path === '/oauth/token');
    expect(token.at(-1)!.auth).toBe(
      `Basic ${Buffer.from(`${sandbox.clientId}:${sandbox.clientSecret}`).toString('base64')}`,
    );
  });

  it('refresh returns the rotated refresh token; the old one is then refused as revoked', async () => {
    const grant = await pair(connector);
    const next = await connector.oauth.refresh(grant);
    expect(next.refresh_token).not.toBe(grant.refresh_token);
    expect(next.access_token).not.toBe(grant.access_token);
    expect(next.account_id).toBe(grant.account_id);
    await expect(connector.oauth.refresh(grant)).rejects.toBeInstanceOf(GrantRevokedError);
    await expect(connector.oauth.refresh({ access_token: 'x' })).rejects.toBeInstanceOf(GrantRevokedError);
  });

  it('reports a refused code or a missing code as ProviderAuthError, without secrets', async () => {
    const { verifier, challenge } = pkcePair();
    const url = connector.oauth.authorizationUrl({ state: 's', redirectUri: REDIRECT_URI, codeChallenge: challenge });
    const res = await fetch(url, { redirect: 'manual' });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const wrongVerifier = createHash('sha256').update('other').digest('base64url');
    const err = await connector.oauth
      .completeCallback({ query: { code }, redirectUri: REDIRECT_URI, codeVerifier: wrongVerifier })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderAuthError);
    expect((err as ProviderAuthError).error).toBe('invalid_grant');
    expect((err as Error).message).not.toContain(sandbox.clientSecret);
    // The code was spent by the failed attempt: single use.
    await expect(
      connector.oauth.completeCallback({ query: { code }, redirectUri: REDIRECT_URI, codeVerifier: verifier }),
    ).rejects.toBeInstanceOf(ProviderAuthError);
    await expect(
      connector.oauth.completeCallback({ query: {}, redirectUri: REDIRECT_URI, codeVerifier: verifier }),
    ).rejects.toBeInstanceOf(ProviderAuthError);
  });

  it('a wrong client secret is a configuration error, not a revoked grant', async () => {
    const grant = await pair(connector);
    const misconfigured = createZoomConnector({
      clientId: sandbox.clientId,
      clientSecret: 'wrong',
      oauthUrl: sandbox.oauthUrl,
      apiUrl: sandbox.apiUrl,
      lookbackDays: 30,
    });
    const err = await misconfigured.oauth.refresh(grant).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(GrantRevokedError);
    expect((err as Error).message).toMatch(/invalid_client/);
    expect((err as Error).message).not.toContain('wrong');
  });
});
