import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';

const REDIRECT = 'https://collector.example.test/admin/consented';
const GRAPH_DEFAULT = 'https://graph.microsoft.com/.default';

let clock = Date.UTC(2025, 4, 2, 10, 0, 0);
let sb: MicrosoftSandbox;

beforeAll(async () => {
  sb = await startMicrosoftSandbox({
    seed: 7,
    users: 3,
    folderDepth: 1,
    now: () => new Date(clock),
    tokenLifetimeSeconds: 600,
  });
});
afterAll(() => sb.close());

type Json = Record<string, any>;

async function tokenRequest(
  fields: Record<string, string>,
  tenant = sb.tenantId,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${sb.loginUrl}/${tenant}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const appTokenFields = () => ({
  client_id: sb.clientId,
  client_secret: sb.clientSecret,
  scope: GRAPH_DEFAULT,
  grant_type: 'client_credentials',
});

async function redirectOf(url: string): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!);
}

function expectAadError(body: Json, error: string, code: number) {
  expect(body.error).toBe(error);
  expect(body.error_codes).toEqual([code]);
  expect(body.error_description).toMatch(new RegExp(`^AADSTS${code}: `));
  expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z$/);
  expect(body.trace_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(body.correlation_id).toMatch(/^[0-9a-f-]{36}$/);
}

describe('Microsoft identity sandbox: admin consent and client credentials', () => {
  it('refuses an app token for a tenant that has not consented, then issues one after admin consent', async () => {
    const before = await tokenRequest(appTokenFields());
    expect(before.status).toBe(400);
    expectAadError(before.body, 'unauthorized_client', 700016);
    expect(sb.consentGranted).toBe(false);

    const location = await redirectOf(
      `${sb.loginUrl}/organizations/adminconsent?client_id=${sb.clientId}&state=s-123&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    );
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('admin_consent')).toBe('True');
    expect(location.searchParams.get('tenant')).toBe(sb.tenantId);
    expect(location.searchParams.get('state')).toBe('s-123');
    expect(location.searchParams.get('error')).toBeNull();

    const after = await tokenRequest(appTokenFields());
    expect(after.status).toBe(200);
    expect(after.body.token_type).toBe('Bearer');
    expect(after.body.expires_in).toBe(600);
    expect(after.body.ext_expires_in).toBe(600);
    expect(after.body.refresh_token).toBeUndefined();
    const payload = JSON.parse(Buffer.from(after.body.access_token.split('.')[1], 'base64url').toString());
    expect(payload).toMatchObject({
      aud: 'https://graph.microsoft.com',
      tid: sb.tenantId,
      appid: sb.clientId,
      idtyp: 'app',
      roles: ['Files.Read.All', 'User.Read.All', 'Files.ReadWrite.All'],
    });
    expect(payload.exp - payload.iat).toBe(600);
  });

  it('accepts the secret in HTTP Basic and the tenant by its domain name', async () => {
    const basic = Buffer.from(`${encodeURIComponent(sb.clientId)}:${encodeURIComponent(sb.clientSecret)}`).toString(
      'base64',
    );
    const result = await tokenRequest({ scope: GRAPH_DEFAULT, grant_type: 'client_credentials' }, sb.tenant.domain, {
      authorization: `Basic ${basic}`,
    });
    expect(result.status).toBe(200);
    expect(typeof result.body.access_token).toBe('string');
  });

  it('rejects a wrong secret with 401 invalid_client AADSTS7000215 and never echoes the secret', async () => {
    const result = await tokenRequest({ ...appTokenFields(), client_secret: 'not-the-secret-xyz' });
    expect(result.status).toBe(401);
    expectAadError(result.body, 'invalid_client', 7000215);
    expect(JSON.stringify(result.body)).not.toContain('not-the-secret-xyz');
  });

  it('answers the documented errors for bad scopes, tenants and grants', async () => {
    const noScope = await tokenRequest({ ...appTokenFields(), scope: '' });
    expectAadError(noScope.body, 'invalid_request', 900144);
    const notDefault = await tokenRequest({ ...appTokenFields(), scope: 'https://graph.microsoft.com/Files.Read.All' });
    expectAadError(notDefault.body, 'invalid_scope', 70011);
    const twoResources = await tokenRequest({
      ...appTokenFields(),
      scope: `${GRAPH_DEFAULT} https://outlook.office.com/.default`,
    });
    expectAadError(twoResources.body, 'invalid_scope', 700022);
    const common = await tokenRequest(appTokenFields(), 'common');
    expectAadError(common.body, 'invalid_request', 9001023);
    const unknownTenant = await tokenRequest(appTokenFields(), '11111111-2222-4333-8444-555555555555');
    expectAadError(unknownTenant.body, 'invalid_request', 90002);
    const unknownApp = await tokenRequest({ ...appTokenFields(), client_id: 'someone-else' });
    expectAadError(unknownApp.body, 'unauthorized_client', 700016);
    const badGrant = await tokenRequest({ ...appTokenFields(), grant_type: 'password' });
    expectAadError(badGrant.body, 'unsupported_grant_type', 70003);
  });

  it('v2 admin consent returns the granted scopes; denial redirects with error first (v2 still says admin_consent=True)', async () => {
    const base = `${sb.loginUrl}/${sb.tenantId}/v2.0/adminconsent?client_id=${sb.clientId}&scope=${encodeURIComponent(GRAPH_DEFAULT)}&redirect_uri=${encodeURIComponent(REDIRECT)}&state=v2`;
    const ok = await redirectOf(base);
    expect(ok.searchParams.get('tenant')).toBe(sb.tenantId);
    expect(ok.searchParams.get('scope')).toBe(
      'https://graph.microsoft.com/Files.Read.All https://graph.microsoft.com/User.Read.All',
    );

    const deniedV2 = await redirectOf(`${base}&sandbox_deny=1`);
    expect(deniedV2.searchParams.get('error')).toBe('consent_required');
    expect(deniedV2.searchParams.get('admin_consent')).toBe('True');
    expect(deniedV2.searchParams.get('error_description')).toMatch(/^AADSTS65004: /);
    expect(deniedV2.searchParams.get('state')).toBe('v2');
    expect(deniedV2.searchParams.get('tenant')).toBeNull();

    sb.denyConsent = true;
    try {
      const deniedV1 = await redirectOf(
        `${sb.loginUrl}/${sb.tenantId}/adminconsent?client_id=${sb.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&state=v1`,
      );
      expect(deniedV1.searchParams.get('error')).toBe('permission_denied');
      expect(deniedV1.searchParams.get('error_description')).toBe('The admin canceled the request');
    } finally {
      sb.denyConsent = false;
    }
  });

  it('shows an error page instead of redirecting for an unknown app or a disallowed redirect_uri', async () => {
    const response = await fetch(
      `${sb.loginUrl}/${sb.tenantId}/adminconsent?client_id=nope&redirect_uri=${encodeURIComponent(REDIRECT)}`,
      { redirect: 'manual' },
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('AADSTS700016');
    const badUri = await fetch(
      `${sb.loginUrl}/${sb.tenantId}/adminconsent?client_id=${sb.clientId}&redirect_uri=javascript:alert(1)`,
      { redirect: 'manual' },
    );
    expect(badUri.status).toBe(400);
  });

  it('app tokens stop working at Graph once expired (401 InvalidAuthenticationToken)', async () => {
    const { body } = await tokenRequest(appTokenFields());
    const call = () =>
      fetch(`${sb.graphUrl}/users?$top=1`, { headers: { authorization: `Bearer ${body.access_token}` } });
    expect((await call()).status).toBe(200);
    clock += 601_000;
    const expired = await call();
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as Json).error.code).toBe('InvalidAuthenticationToken');
  });
});

describe('Microsoft identity sandbox: authorization code flow', () => {
  const verifier = 'a-long-random-pkce-verifier-0123456789-abcdefghijklmnop';
  const challenge = createHash('sha256').update(verifier).digest('base64url');

  async function authorize(extra = ''): Promise<URL> {
    const scope = encodeURIComponent('openid offline_access https://graph.microsoft.com/User.Read');
    return redirectOf(
      `${sb.loginUrl}/organizations/oauth2/v2.0/authorize?client_id=${sb.clientId}&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=${scope}&state=st&code_challenge=${challenge}&code_challenge_method=S256${extra}`,
    );
  }

  it('redeems a code once (PKCE checked), rotates refresh tokens, and honours revocation', async () => {
    const location = await authorize();
    expect(location.searchParams.get('state')).toBe('st');
    const code = location.searchParams.get('code')!;
    const redeem = (codeVerifier: string) =>
      tokenRequest({
        client_id: sb.clientId,
        client_secret: sb.clientSecret,
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: codeVerifier,
      });

    const wrongVerifier = await redeem('not-the-verifier');
    expectAadError(wrongVerifier.body, 'invalid_grant', 501481);
    const first = await redeem(verifier);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ token_type: 'Bearer' });
    expect(first.body.refresh_token).toEqual(expect.any(String));
    const idToken = JSON.parse(Buffer.from(first.body.id_token.split('.')[1], 'base64url').toString());
    expect(idToken).toMatchObject({ aud: sb.clientId, tid: sb.tenantId, oid: sb.tenant.users[0].id, ver: '2.0' });
    const reused = await redeem(verifier);
    expectAadError(reused.body, 'invalid_grant', 54005);

    const me = await fetch(`${sb.graphUrl}/me`, { headers: { authorization: `Bearer ${first.body.access_token}` } });
    expect(((await me.json()) as Json).id).toBe(sb.tenant.users[0].id);

    const refreshed = await tokenRequest({
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toEqual(expect.any(String));
    expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);

    sb.revokeRefreshTokens();
    const revoked = await tokenRequest({
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token,
    });
    expectAadError(revoked.body, 'invalid_grant', 50173);
  });

  it('redirects access_denied when the user cancels', async () => {
    const location = await authorize('&sandbox_deny=1');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('code')).toBeNull();
    expect(location.searchParams.get('state')).toBe('st');
  });

  it('serves OIDC metadata and JWKS pointing back at the sandbox', async () => {
    const response = await fetch(`${sb.loginUrl}/${sb.tenantId}/v2.0/.well-known/openid-configuration`);
    const meta = (await response.json()) as Json;
    expect(meta.issuer).toBe(`${sb.loginUrl}/${sb.tenantId}/v2.0`);
    expect(meta.token_endpoint).toBe(`${sb.loginUrl}/${sb.tenantId}/oauth2/v2.0/token`);
    expect(meta.authorization_endpoint).toBe(`${sb.loginUrl}/${sb.tenantId}/oauth2/v2.0/authorize`);
    const jwks = (await (await fetch(meta.jwks_uri)).json()) as Json;
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', use: 'sig' });
    const common = (await (await fetch(`${sb.loginUrl}/common/v2.0/.well-known/openid-configuration`)).json()) as Json;
    expect(common.issuer).toBe(`${sb.loginUrl}/{tenantid}/v2.0`);
  });
});
