import crypto from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { createOneDriveConnector } from '../../src/connectors/onedrive/index.ts';
import { GrantRevokedError, ProviderAuthError, type Connector } from '../../src/connectors/types.ts';
import { validateEdriveFilters } from '../../src/domain/filters/edrive.ts';
import { REDIRECT_URI, consentRedirect, pair, testConnector } from './onedrive-harness.ts';

let sandbox: MicrosoftSandbox;
let connector: Connector;

beforeEach(async () => {
  sandbox = await startMicrosoftSandbox({ seed: 3, users: 2, tokenLifetimeSeconds: 4321 });
  connector = testConnector(sandbox);
});

afterEach(async () => {
  await sandbox?.close();
});

const complete = (query: Record<string, string | undefined>) => connector.oauth.completeCallback({ query, redirectUri: REDIRECT_URI, codeVerifier: 'unused' });

describe('OneDrive admin consent and app tokens', () => {
  it('describes itself as the edrive connector with application permissions', () => {
    expect(connector).toMatchObject({ type: 'edrive', configType: 'edrive', kinds: ['file', 'folder'] });
    expect(connector.oauth.authorizationResponse).toBe('json');
    expect(connector.oauth.scopes.default).toEqual(['Files.Read.All', 'User.Read.All']);
    expect(connector.userAgent).toMatch(/^ISV\|[^|]+\|[^/]+\/\d/);
    expect(connector.validateFilters).toBe(validateEdriveFilters);
  });

  it('points at the v2 admin-consent endpoint with the .default scope, client id, redirect and state', () => {
    const url = new URL(connector.oauth.authorizationUrl({ state: 'signed-state', redirectUri: REDIRECT_URI, codeChallenge: 'x' }));
    expect(`${url.origin}${url.pathname}`).toBe(`${sandbox.loginUrl}/organizations/v2.0/adminconsent`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: sandbox.clientId,
      scope: 'https://graph.microsoft.com/.default',
      redirect_uri: REDIRECT_URI,
      state: 'signed-state',
    });
  });

  it('proves the consent with a client-credentials token and keeps its real lifetime', async () => {
    const query = await consentRedirect(connector, 'abc');
    expect(query).toMatchObject({ admin_consent: 'True', tenant: sandbox.tenantId, state: 'abc' });
    const before = Date.now();
    const grant = await complete(query);
    expect(grant.tenant_id).toBe(sandbox.tenantId);
    expect(typeof grant.access_token).toBe('string');
    const lifetime = (Date.parse(grant.expires_at!) - before) / 1000;
    expect(lifetime).toBeGreaterThan(4300);
    expect(lifetime).toBeLessThan(4330);
    const tokenRequests = sandbox.requests.filter((r) => r.path === `/${sandbox.tenantId}/oauth2/v2.0/token`);
    expect(tokenRequests).toHaveLength(1);
  });

  it('shows a denied consent as the documented error redirect, which carries no tenant to trust', async () => {
    sandbox.denyConsent = true;
    const query = await consentRedirect(connector);
    expect(query).toMatchObject({ admin_consent: 'True', error: 'consent_required' });
    expect(query.tenant).toBeUndefined();
    await expect(complete(query)).rejects.toBeInstanceOf(ProviderAuthError);
    expect(sandbox.consentGranted).toBe(false);
  });

  it('refuses a tenant that never consented, even when the redirect claims it did', async () => {
    await expect(complete({ admin_consent: 'True', tenant: sandbox.tenantId, state: 's' })).rejects.toMatchObject({ error: 'access_denied' });
    await expect(complete({ admin_consent: 'True', tenant: crypto.randomUUID(), state: 's' })).rejects.toBeInstanceOf(ProviderAuthError);
    await expect(complete({ admin_consent: 'True', tenant: '../evil', state: 's' })).rejects.toMatchObject({ error: 'invalid_request' });
  });

  it('refreshes with a new client-credentials token, and reports a revoked consent as a revoked grant', async () => {
    const grant = await pair(connector);
    const next = await connector.oauth.refresh(grant);
    expect(next.tenant_id).toBe(grant.tenant_id);
    expect(next.access_token).not.toBe(grant.access_token);
    sandbox.revokeConsent();
    await expect(connector.oauth.refresh(grant)).rejects.toBeInstanceOf(GrantRevokedError);
  });

  it('does not call a wrong client secret a revoked grant, and never repeats the secret', async () => {
    const grant = await pair(connector);
    const wrong = createOneDriveConnector({ clientId: sandbox.clientId, clientSecret: 'not-the-secret-123', loginUrl: sandbox.loginUrl, graphUrl: sandbox.graphUrl });
    const error = await wrong.oauth.refresh(grant).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(GrantRevokedError);
    expect(String((error as Error).message)).not.toContain('not-the-secret-123');
    expect(JSON.stringify((error as { body?: unknown }).body ?? null)).not.toContain('not-the-secret-123');
  });
});
