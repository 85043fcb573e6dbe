import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderAuthError, type Connector, type DiscoveryHandler, type Grant } from '../../src/connectors/types.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { TestApp } from './app.ts';
import { httpQuirks } from '../../src/provider/quirks.ts';
import { GrantRevokedError } from '../../src/domain/run-failures.ts';

/**
 * A tiny provider on 127.0.0.1 and two connectors that use it: `conf` (user OAuth, 302 authorization answer,
 * rotating refresh tokens) and `edrive` (admin consent, JSON answer, app tokens acquired through `refresh`).
 * The API checks bearer tokens for real, so discovery tests prove which credential reached the provider.
 */
export interface FakeProvider {
  url: string;
  accessTokens: Set<string>;
  refreshTokens: Set<string>;
  revokedTenants: Set<string>;
  /** When set, every API call answers this status. */
  failWith: number | null;
  calls: {
    authorizationUrl: { state: string; redirectUri: string; codeChallenge: string; scopesType?: string }[];
    completeCallback: { query: Record<string, string | undefined>; redirectUri: string; codeVerifier: string }[];
    refresh: Grant[];
    /** Bearer tokens the API saw, in order. */
    api: { path: string; token: string | null }[];
    grantInfo: Record<string, unknown>[];
  };
  revokeEverything(): void;
  close(): Promise<void>;
}

const token = (prefix: string) => `${prefix}-${crypto.randomBytes(12).toString('hex')}`;

export const USERS = Array.from({ length: 5 }, (_, i) => ({
  id: `u${i + 1}`,
  first_name: `First${i + 1}`,
  last_name: `Last${i + 1}`,
  email: `user${i + 1}@example.test`,
  status: i === 4 ? 'inactive' : 'active',
  dept: 'Legal',
  custom_attributes: [{ key: 'cost_center', value: `cc-${i + 1}` }],
}));

export const CHANNELS: Record<string, { id: string; name: string; is_private: boolean; channel_settings: object }[]> = {
  u1: [
    { id: 'ch1', name: 'general', is_private: false, channel_settings: { allow_to_add_external_users: 0 } },
    { id: 'ch2', name: 'secret-plans', is_private: true, channel_settings: { allow_to_add_external_users: 1 } },
  ],
};

export const FOLDERS = [
  {
    id: 'f1',
    name: 'Contracts',
    parent: 'root',
    size: 1234,
    webUrl: 'https://drive.example/f1',
    created: '2024-01-02T03:04:05Z',
    modified: '2024-02-03T04:05:06Z',
  },
  {
    id: 'f2',
    name: '2024',
    parent: 'f1',
    size: 99,
    webUrl: 'https://drive.example/f2',
    created: '2024-01-03T00:00:00Z',
    modified: '2024-01-04T00:00:00Z',
  },
];

export async function startFakeProvider(): Promise<FakeProvider> {
  const provider: Omit<FakeProvider, 'url' | 'close'> = {
    accessTokens: new Set(),
    refreshTokens: new Set(),
    revokedTenants: new Set(),
    failWith: null,
    calls: { authorizationUrl: [], completeCallback: [], refresh: [], api: [], grantInfo: [] },
    revokeEverything() {
      provider.accessTokens.clear();
      provider.refreshTokens.clear();
    },
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
    provider.calls.api.push({ path: url.pathname, token: bearer });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (provider.failWith) return send(provider.failWith, { code: 'boom', message: 'the fake provider is failing' });
    if (!bearer || !provider.accessTokens.has(bearer))
      return send(401, { code: 124, message: 'Invalid access token.' });
    const start = Number(url.searchParams.get('page_token') || 0);
    const size = Number(url.searchParams.get('page_size') || 300);
    if (url.pathname === '/api/users') {
      const page = USERS.slice(start, start + size);
      return send(200, { users: page, next_page_token: start + size < USERS.length ? String(start + size) : '' });
    }
    if (url.pathname === '/api/channels') {
      const channels = CHANNELS[url.searchParams.get('user') ?? ''];
      if (!channels) return send(404, { code: 1001, message: 'User does not exist.' });
      return send(200, { channels, next_page_token: '' });
    }
    if (url.pathname === '/api/folders') {
      const parent = url.searchParams.get('parent') || 'root';
      return send(200, { value: FOLDERS.filter((f) => f.parent === parent) });
    }
    return send(404, { code: 404, message: 'no such fake endpoint' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(provider, {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function base(p: FakeProvider, type: string, configType: string): Omit<Connector, 'oauth' | 'discovery'> {
  return {
    type,
    configType,
    quirks: httpQuirks,
    limits: {
      budget: { ratePerSecond: 100, concurrency: 4 },
      retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20, giveUpAfterMs: 2000 },
    },
    userAgent: `custody-tests/${type}`,
    validateFilters: () => [],
    async *collect() {},
    kinds: [],
  };
}

function withGrantInfo(p: FakeProvider, handler: DiscoveryHandler): DiscoveryHandler {
  return async (ctx, query) => {
    p.calls.grantInfo.push(ctx.grantInfo);
    return handler(ctx, query);
  };
}

/** User OAuth with a code exchange. Codes: `refused` → invalid_grant, `boom` → an unexpected failure. */
export function fakeConfConnector(p: FakeProvider, type = 'conf'): Connector {
  const mint = (accountId: string): Grant => {
    const grant = {
      access_token: token('at'),
      refresh_token: token('rt'),
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      account_id: accountId,
      scope: 'user:read',
    };
    p.accessTokens.add(grant.access_token);
    p.refreshTokens.add(grant.refresh_token);
    return grant;
  };
  return {
    ...base(p, type, 'conf'),
    oauth: {
      authorizationResponse: 'redirect',
      scopes: { default: ['user:read'], preservation: ['user:read', 'archiving:read'] },
      authorizationUrl(input) {
        p.calls.authorizationUrl.push(input);
        const q = new URLSearchParams({
          response_type: 'code',
          state: input.state,
          redirect_uri: input.redirectUri,
          code_challenge: input.codeChallenge,
          code_challenge_method: 'S256',
        });
        if (input.scopesType) q.set('scopes_type', input.scopesType);
        return `${p.url}/oauth/authorize?${q}`;
      },
      async completeCallback(input) {
        p.calls.completeCallback.push(input);
        if (input.query.code === 'refused')
          throw new ProviderAuthError('invalid_grant', 'The authorization code is invalid or expired.');
        if (input.query.code === 'boom') throw new Error('socket hang up at 10.0.0.1 with secret s3cr3t');
        return mint(`acct-${input.query.code}`);
      },
      async refresh(grant) {
        p.calls.refresh.push(grant);
        if (typeof grant.refresh_token !== 'string' || !p.refreshTokens.delete(grant.refresh_token))
          throw new GrantRevokedError('invalid_grant');
        return mint(String(grant.account_id));
      },
    },
    discovery: {
      users: withGrantInfo(p, async (ctx, q) => {
        const size = Math.min(Number(q.limit ?? 300), 300);
        const page = await ctx.http.json<{ users: Record<string, unknown>[]; next_page_token: string }>(
          `${p.url}/api/users?page_size=${size}&page_token=${encodeURIComponent(q.offset ?? '')}`,
        );
        return {
          results: page.users.map((u) => ({ id: u.id, data: u })),
          next_page_token: page.next_page_token || null,
        };
      }),
      channels: withGrantInfo(p, async (ctx, q) => {
        if (!USERS.some((u) => u.id === q.user)) throw new DomainError('not_found', `user ${q.user} not found.`);
        const page = await ctx.http.json<{ channels: unknown[] }>(
          `${p.url}/api/channels?user=${encodeURIComponent(q.user ?? '')}`,
        );
        return { results: page.channels, next_page_token: null };
      }),
    },
  };
}

/** Admin consent: the callback proves the tenant; `refresh` acquires app tokens (none is stored at pairing). */
export function fakeDriveConnector(p: FakeProvider, type = 'edrive'): Connector {
  return {
    ...base(p, type, 'edrive'),
    oauth: {
      authorizationResponse: 'json',
      scopes: { default: ['https://graph.example/.default'] },
      authorizationUrl(input) {
        p.calls.authorizationUrl.push(input);
        return `${p.url}/common/adminconsent?${new URLSearchParams({ client_id: 'fake', state: input.state, redirect_uri: input.redirectUri })}`;
      },
      async completeCallback(input) {
        p.calls.completeCallback.push(input);
        if (input.query.admin_consent !== 'True' || !input.query.tenant)
          throw new ProviderAuthError('access_denied', 'No consent was given.');
        return { tenant_id: input.query.tenant };
      },
      async refresh(grant) {
        p.calls.refresh.push(grant);
        if (p.revokedTenants.has(String(grant.tenant_id))) throw new GrantRevokedError('consent revoked');
        const accessToken = token('app');
        p.accessTokens.add(accessToken);
        return {
          tenant_id: grant.tenant_id,
          access_token: accessToken,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        };
      },
    },
    discovery: {
      users: withGrantInfo(p, async (ctx, q) => {
        const limit = Math.min(Number(q.limit ?? 100), 999);
        const page = await ctx.http.json<{ users: (typeof USERS)[number][]; next_page_token: string }>(
          `${p.url}/api/users?page_size=${limit}&page_token=${encodeURIComponent(q.marker ?? '')}`,
        );
        const entries = page.users.map((u) => ({
          id: u.id,
          display_name: `${u.first_name} ${u.last_name}`,
          mail: u.email,
          user_principal_name: u.email,
          job_title: null,
          department: u.dept,
          office_location: null,
          account_enabled: u.status === 'active',
        }));
        return { entries, limit, next_marker: page.next_page_token || null };
      }),
      folders: withGrantInfo(p, async (ctx, q) => {
        if (q.user_id === 'nodrive')
          throw new DomainError('not_found', `user ${q.user_id} has no provisioned OneDrive.`);
        const page = await ctx.http.json<{ value: (typeof FOLDERS)[number][] }>(
          `${p.url}/api/folders?parent=${encodeURIComponent(q.parent_id ?? '')}`,
        );
        const results = page.value.map((f) => ({
          id: f.id,
          name: f.name,
          link: f.webUrl,
          size: f.size,
          created_datetime: f.created,
          last_modified_datetime: f.modified,
          sorted_path_elements:
            f.parent === 'root'
              ? [{ id: f.id, name: f.name }]
              : [
                  { id: 'f1', name: 'Contracts' },
                  { id: f.id, name: f.name },
                ],
          child_count: 1,
        }));
        return { results, total_count_label: `${results.length} folders`, _next: null };
      }),
    },
  };
}

/** Drives the whole pairing flow over HTTP, as a client and a browser would; returns the pairing code. */
export async function consent(
  t: TestApp,
  bearer: string,
  type: string,
  query: Record<string, string>,
  redirectTo: string,
): Promise<string> {
  const res = await t.call(
    bearer,
    'GET',
    `/v1/collections/authorization_url/${type}?${new URLSearchParams({ redirect_to: redirectTo, state: 'client-state' })}`,
  );
  const location =
    res.status === 302
      ? res.headers.get('location')
      : ((await res.json()) as { authorization_url?: string }).authorization_url;
  if (!location) throw new Error(`authorization_url answered ${res.status}`);
  const state = new URL(location).searchParams.get('state') ?? '';
  const back = await fetch(`${t.url}/v1/oauth/callback/${type}?${new URLSearchParams({ ...query, state })}`, {
    redirect: 'manual',
  });
  const code = new URL(back.headers.get('location') ?? 'x:').searchParams.get('code');
  if (back.status !== 302 || !code) throw new Error(`callback answered ${back.status} ${back.headers.get('location')}`);
  return code;
}

export async function pair(t: TestApp, bearer: string, collectionId: string, code: string): Promise<Response> {
  return t.call(
    bearer,
    'POST',
    `/v1/collections/${collectionId}/pair_credentials?auth_code=${encodeURIComponent(code)}`,
  );
}
