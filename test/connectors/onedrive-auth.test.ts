import crypto from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { createOneDriveConnector } from '../../src/connectors/onedrive/index.ts';
import {
  isOAuthContinuation,
  ProviderAuthError,
  type Connector,
  type Grant,
  type OAuthContinuation,
} from '../../src/connectors/types.ts';
import { validateEdriveFilters } from '../../src/domain/filters/edrive.ts';
import { REDIRECT_URI, testConnector } from './onedrive-harness.ts';
import { GrantRevokedError } from '../../src/domain/run-failures.ts';

let sandbox: MicrosoftSandbox;
let connector: Connector;

beforeEach(async () => {
  sandbox = await startMicrosoftSandbox({ seed: 3, users: 2, tokenLifetimeSeconds: 4321 });
  connector = testConnector(sandbox);
});

afterEach(async () => {
  await sandbox?.close();
});

const VERIFIER = 'pkce-verifier-for-the-edrive-sign-in-0123456789abcdef';
const CHALLENGE = crypto.createHash('sha256').update(VERIFIER).digest('base64url');
type Query = Record<string, string | undefined>;

/** The browser: opens a URL at the sandbox and returns the query it is redirected back with. */
async function follow(url: string): Promise<Query> {
  const res = await fetch(url, { redirect: 'manual' });
  if (res.status !== 302) throw new Error(`${new URL(url).pathname} answered ${res.status}: ${await res.text()}`);
  return Object.fromEntries(new URL(res.headers.get('location')!).searchParams);
}

function signInUrl(extra: Record<string, string> = {}, c: Connector = connector): string {
  const url = new URL(c.oauth.authorizationUrl({ state: 'st-1', redirectUri: REDIRECT_URI, codeChallenge: CHALLENGE }));
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
  return url.toString();
}

const complete = (query: Query, carried?: Record<string, string>, c: Connector = connector, codeVerifier = VERIFIER) =>
  c.oauth.completeCallback({ query, redirectUri: REDIRECT_URI, codeVerifier, ...(carried && { carried }) });

async function signIn(extra: Record<string, string> = {}): Promise<OAuthContinuation> {
  const next = await complete(await follow(signInUrl(extra)));
  if (!isOAuthContinuation(next)) throw new Error('the sign-in step returned a grant');
  return next;
}

async function pairFully(c: Connector = connector): Promise<Grant> {
  const next = await complete(await follow(signInUrl({}, c)), undefined, c);
  if (!isOAuthContinuation(next)) throw new Error('the sign-in step returned a grant');
  const grant = await complete(await follow(next.continueTo('st-2')), next.carry, c);
  if (isOAuthContinuation(grant)) throw new Error('the consent step did not end the flow');
  return grant;
}

const tokenRequestsFor = (tenant: string) => sandbox.requests.filter((r) => r.path === `/${tenant}/oauth2/v2.0/token`);

describe('OneDrive pairing: the administrator signs in, then consents for their own tenant', () => {
  it('describes itself as the edrive connector with application permissions', () => {
    expect(connector).toMatchObject({ type: 'edrive', configType: 'edrive', kinds: ['file', 'folder'] });
    expect(connector.oauth.authorizationResponse).toBe('json');
    expect(connector.oauth.scopes.default).toEqual(['Files.Read.All', 'User.Read.All']);
    expect(connector.userAgent).toMatch(/^ISV\|[^|]+\|[^/]+\/\d/);
    expect(connector.validateFilters).toBe(validateEdriveFilters);
  });

  it('starts at the organizations sign-in with a code, PKCE S256, openid profile and the state', () => {
    const url = new URL(
      connector.oauth.authorizationUrl({ state: 'signed-state', redirectUri: REDIRECT_URI, codeChallenge: CHALLENGE }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(`${sandbox.loginUrl}/organizations/oauth2/v2.0/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: sandbox.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      response_mode: 'query',
      scope: 'openid profile',
      state: 'signed-state',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    });
  });

  it('turns a verified sign-in into a continuation to admin consent in the tenant of the id_token', async () => {
    const next = await signIn();
    expect(next.carry).toEqual({ step: 'consent', tid: sandbox.tenantId });
    const url = new URL(next.continueTo('next-state'));
    expect(`${url.origin}${url.pathname}`).toBe(`${sandbox.loginUrl}/${sandbox.tenantId}/v2.0/adminconsent`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: sandbox.clientId,
      scope: 'https://graph.microsoft.com/.default',
      redirect_uri: REDIRECT_URI,
      state: 'next-state',
    });
    // The code went back over the back channel; the id_token was checked against the tenant's published keys.
    const paths = sandbox.requests.map((r) => r.path);
    expect(paths).toContain('/organizations/oauth2/v2.0/token');
    expect(paths).toContain(`/${sandbox.tenantId}/v2.0/.well-known/openid-configuration`);
    expect(paths).toContain(`/${sandbox.tenantId}/discovery/v2.0/keys`);
    expect(sandbox.consentGranted).toBe(false);
  });

  it('proves the consent with a client-credentials token for the signed-in tenant and keeps its real lifetime', async () => {
    const before = Date.now();
    const grant = await pairFully();
    expect(grant.tenant_id).toBe(sandbox.tenantId);
    expect(typeof grant.access_token).toBe('string');
    const lifetime = (Date.parse(grant.expires_at!) - before) / 1000;
    expect(lifetime).toBeGreaterThan(4300);
    expect(lifetime).toBeLessThan(4330);
    expect(tokenRequestsFor(sandbox.tenantId)).toHaveLength(1);
  });

  it('refuses a consent for another tenant than the signed-in one, even a tenant that did consent', async () => {
    const next = await signIn();
    // The other organisation's admin consents for their own tenant, so a token for it could be had.
    const other = await follow(
      `${sandbox.loginUrl}/${sandbox.otherTenant.id}/v2.0/adminconsent?${new URLSearchParams({ client_id: sandbox.clientId, scope: 'https://graph.microsoft.com/.default', redirect_uri: REDIRECT_URI, state: 'x' })}`,
    );
    expect(other).toMatchObject({ admin_consent: 'True', tenant: sandbox.otherTenant.id });
    expect(sandbox.otherTenant.consentGranted).toBe(true);

    const err = await complete({ admin_consent: 'True', tenant: sandbox.otherTenant.id }, next.carry).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProviderAuthError);
    expect(err).toMatchObject({ error: 'access_denied' });
    expect((err as Error).message).toMatch(/another tenant than the one the administrator signed in to/);
    expect(tokenRequestsFor(sandbox.otherTenant.id)).toHaveLength(0);
  });

  it("binds the other organisation's admin to their own tenant", async () => {
    const next = await signIn({ login_hint: sandbox.otherTenant.adminUpn });
    expect(next.carry.tid).toBe(sandbox.otherTenant.id);
    expect(new URL(next.continueTo('s')).pathname).toBe(`/${sandbox.otherTenant.id}/v2.0/adminconsent`);
    sandbox.grantConsent();
    await expect(complete({ admin_consent: 'True', tenant: sandbox.tenantId }, next.carry)).rejects.toMatchObject({
      error: 'access_denied',
    });
    const grant = await complete(await follow(next.continueTo('s')), next.carry);
    expect(grant).toMatchObject({ tenant_id: sandbox.otherTenant.id });
  });

  it('refuses a member who cannot grant tenant-wide consent, and says why when the roles claim is missing', async () => {
    const member = sandbox.tenant.users[1].userPrincipalName;
    const err = await complete(await follow(signInUrl({ login_hint: member }))).catch((e: unknown) => e);
    expect(err).toMatchObject({ error: 'access_denied' });
    expect((err as Error).message).toMatch(/not a Global Administrator or Privileged Role Administrator/);

    sandbox.directoryRoleClaims = false;
    const missing = await complete(await follow(signInUrl())).catch((e: unknown) => e);
    expect(missing).toMatchObject({ error: 'access_denied' });
    expect((missing as Error).message).toMatch(/no wids claim.*groupMembershipClaims/);
  });

  it('wants a code at the first step: a consent-shaped redirect or a wrong PKCE verifier gets nowhere', async () => {
    sandbox.grantConsent();
    await expect(complete({ admin_consent: 'True', tenant: sandbox.tenantId })).rejects.toMatchObject({
      error: 'invalid_request',
    });
    const query = await follow(signInUrl());
    await expect(
      complete(query, undefined, connector, 'not-the-verifier-0123456789-0123456789-abcdef'),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    // With the right verifier it works once; Microsoft codes are single use.
    expect(isOAuthContinuation(await complete(query))).toBe(true);
    await expect(complete(query)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(
      complete({ admin_consent: 'True', tenant: sandbox.tenantId }, { step: 'other' }),
    ).rejects.toMatchObject({ error: 'invalid_request' });
  });

  it('shows a denied consent as the documented error redirect, which carries no tenant to trust', async () => {
    const next = await signIn();
    sandbox.denyConsent = true;
    const query = await follow(next.continueTo('s'));
    expect(query).toMatchObject({ admin_consent: 'True', error: 'consent_required' });
    expect(query.tenant).toBeUndefined();
    await expect(complete(query, next.carry)).rejects.toBeInstanceOf(ProviderAuthError);
    expect(sandbox.consentGranted).toBe(false);
  });

  it('refuses a signed-in tenant that never consented, and a malformed tenant id', async () => {
    const next = await signIn();
    await expect(complete({ admin_consent: 'True', tenant: sandbox.tenantId }, next.carry)).rejects.toMatchObject({
      error: 'access_denied',
    });
    await expect(complete({ admin_consent: 'True', tenant: '../evil' }, next.carry)).rejects.toMatchObject({
      error: 'invalid_request',
    });
    await expect(complete({ tenant: sandbox.tenantId }, next.carry)).rejects.toMatchObject({ error: 'access_denied' });
  });

  it('refreshes with a new client-credentials token, and reports a revoked consent as a revoked grant', async () => {
    const grant = await pairFully();
    const next = await connector.oauth.refresh(grant);
    expect(next.tenant_id).toBe(grant.tenant_id);
    expect(next.access_token).not.toBe(grant.access_token);
    sandbox.revokeConsent();
    await expect(connector.oauth.refresh(grant)).rejects.toBeInstanceOf(GrantRevokedError);
  });

  it('does not call a wrong client secret a revoked grant or a refused sign-in, and never repeats the secret', async () => {
    const grant = await pairFully();
    const wrong = createOneDriveConnector({
      clientId: sandbox.clientId,
      clientSecret: 'not-the-secret-123',
      loginUrl: sandbox.loginUrl,
      graphUrl: sandbox.graphUrl,
    });
    const error = await wrong.oauth.refresh(grant).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(GrantRevokedError);
    expect(String((error as Error).message)).not.toContain('not-the-secret-123');
    expect(JSON.stringify((error as { body?: unknown }).body ?? null)).not.toContain('not-the-secret-123');

    const signInError = await complete(await follow(signInUrl({}, wrong)), undefined, wrong).catch((e: unknown) => e);
    expect(signInError).not.toBeInstanceOf(ProviderAuthError);
    expect(String((signInError as Error).message)).not.toContain('not-the-secret-123');
  });
});
