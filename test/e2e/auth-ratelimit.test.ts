import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createRateLimits } from '../../src/http/rate-limits.ts';
import { openSharedConnections } from '../../src/store/shared-connections.ts';
import { pgUrl, testDatabases } from '../support/databases.ts';

async function tokenCall(t: TestApp, form: Record<string, string>) {
  const res = await t.call(null, 'POST', '/v1/oauth/token', { form });
  return { res, body: (await res.json()) as Record<string, any> };
}

function expect429(res: Response, body: Record<string, any>) {
  expect(res.status).toBe(429);
  const retryAfter = res.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(body).toEqual({
    code: '00429_too_many_requests',
    id: res.headers.get('x-correlation-id'),
    title: 'Too Many Requests',
    detail: expect.stringContaining(`${retryAfter} seconds`),
    links: { about: expect.stringMatching(/^https?:\/\//) },
    source: null,
  });
}

describe.each(testDatabases.map((d) => [d.name, d] as const))('service auth and rate limits on %s', (_n, database) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ database });
  });
  afterAll(() => t.close());

  it('issues tokens by client credentials and rotates refresh tokens', async () => {
    const c = await t.client('rotation-co');
    const first = await tokenCall(t, {
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: c.clientSecret,
    });
    expect(first.res.status).toBe(200);
    expect(first.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 3600,
      refresh_token: expect.any(String),
    });
    expect(first.res.headers.get('cache-control')).toBe('no-store');
    const second = await tokenCall(t, {
      grant_type: 'refresh_token',
      client_id: c.clientId,
      client_secret: c.clientSecret,
      refresh_token: first.body.refresh_token,
    });
    expect(second.res.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(second.body.access_token).not.toBe(first.body.access_token);
    expect((await t.call(second.body.access_token, 'GET', '/v1/workspaces')).status).toBe(200);
  });

  it('rejects a reused refresh token and revokes its whole family', async () => {
    const c = await t.client('reuse-co');
    const creds = { client_id: c.clientId, client_secret: c.clientSecret };
    const first = await tokenCall(t, { grant_type: 'client_credentials', ...creds });
    const second = await tokenCall(t, {
      grant_type: 'refresh_token',
      ...creds,
      refresh_token: first.body.refresh_token,
    });
    expect((await t.call(second.body.access_token, 'GET', '/v1/workspaces')).status).toBe(200);
    const replay = await tokenCall(t, {
      grant_type: 'refresh_token',
      ...creds,
      refresh_token: first.body.refresh_token,
    });
    expect(replay.res.status).toBe(400);
    expect(replay.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    // the family is dead: the newest access and refresh tokens no longer work
    expect((await t.call(second.body.access_token, 'GET', '/v1/workspaces')).status).toBe(401);
    const after = await tokenCall(t, {
      grant_type: 'refresh_token',
      ...creds,
      refresh_token: second.body.refresh_token,
    });
    expect(after.res.status).toBe(400);
    // an unrelated family of the same client is untouched
    const fresh = await tokenCall(t, { grant_type: 'client_credentials', ...creds });
    expect((await t.call(fresh.body.access_token, 'GET', '/v1/workspaces')).status).toBe(200);
  });

  it("stops a revoked client's access tokens at once, even one written after the revocation", async () => {
    const c = await t.client('revoked-co');
    const { body } = await tokenCall(t, {
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: c.clientSecret,
    });
    expect((await t.call(body.access_token, 'GET', '/v1/workspaces')).status).toBe(200);
    const { db } = t.runtime.ctx;
    await t.runtime.ctx.repos.accounts.revokeClient(c.clientId);
    // a refresh racing the revocation could insert tokens after it: the client's own revocation still wins
    await db.updateTable('service_tokens').set({ revoked_at: null }).where('client_id', '=', c.clientId).execute();
    expect((await t.call(body.access_token, 'GET', '/v1/workspaces')).status).toBe(401);
    const refreshed = await tokenCall(t, {
      grant_type: 'refresh_token',
      client_id: c.clientId,
      client_secret: c.clientSecret,
      refresh_token: body.refresh_token,
    });
    expect(refreshed.res.status).toBe(401);
  });

  it('answers RFC 6749 errors for bad clients and grants', async () => {
    const c = await t.client('errors-co');
    const wrong = await tokenCall(t, {
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: 'nope',
    });
    expect(wrong.res.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const grant = await tokenCall(t, { grant_type: 'password', client_id: c.clientId, client_secret: c.clientSecret });
    expect(grant.res.status).toBe(400);
    expect(grant.body.error).toBe('unsupported_grant_type');
    const other = await t.client('errors-other');
    const mine = await tokenCall(t, {
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: c.clientSecret,
    });
    const stolen = await tokenCall(t, {
      grant_type: 'refresh_token',
      client_id: other.clientId,
      client_secret: other.clientSecret,
      refresh_token: mine.body.refresh_token,
    });
    expect(stolen.res.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
    expect(JSON.stringify([wrong.body, grant.body, stolen.body])).not.toContain(c.clientSecret);
  });

  it('limits the token endpoint to 30/min per client_id, counting failed attempts', async () => {
    const c = await t.client('token-limit-co');
    for (let i = 0; i < 29; i++) {
      const { res } = await tokenCall(t, {
        grant_type: 'client_credentials',
        client_id: c.clientId,
        client_secret: 'wrong',
      });
      expect(res.status).toBe(401);
    }
    const thirtieth = await tokenCall(t, {
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: c.clientSecret,
    });
    expect(thirtieth.res.status).toBe(200);
    const { res, body } = await tokenCall(t, {
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: c.clientSecret,
    });
    expect429(res, body);
    // another client_id has its own budget
    const d = await t.client('token-limit-other');
    expect(
      (await tokenCall(t, { grant_type: 'client_credentials', client_id: d.clientId, client_secret: d.clientSecret }))
        .res.status,
    ).toBe(200);
  });

  it('answers the 601st request in a minute with 429, exact headers and body', async () => {
    const token = await t.token('busy-co');
    const first = await t.call(token, 'GET', '/v1/workspaces');
    expect(first.headers.get('ratelimit-limit')).toBe('600');
    expect(first.headers.get('ratelimit-remaining')).toBe('599');
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    for (let i = 1; i < 600; i++) {
      const res = await t.call(token, 'GET', i % 2 ? '/v1/workspaces' : '/v1/collections/col_missing');
      expect(res.status).not.toBe(429);
      await res.arrayBuffer();
    }
    const res = await t.call(token, 'GET', '/v1/workspaces');
    expect429(res, (await res.json()) as Record<string, any>);
    // a request without a token is not limited: it gets its 401
    expect((await t.call(null, 'GET', '/v1/workspaces')).status).toBe(401);
    // another token of the same account has its own budget
    expect((await t.call(await t.token('busy-co'), 'GET', '/v1/workspaces')).status).toBe(200);
  });
});

describe.skipIf(!pgUrl)('a budget shared by two API processes', () => {
  it('boots several limiters at once on a fresh PostgreSQL schema', async () => {
    const pg = testDatabases.find((d) => d.name === 'postgres')!;
    const shared = await pg.open();
    try {
      const config = loadConfig({ DATABASE_URL: shared.url!, DATA_DIR: '/tmp/unused' });
      // four processes: each its own connections
      const connections = Array.from({ length: 4 }, () =>
        openSharedConnections({ databaseUrl: shared.url, pgSchema: shared.schema }),
      );
      const limits = await Promise.all(connections.map((c) => createRateLimits(config, c)));
      const results = await Promise.all(limits.map((l) => l.consume('default', 'same-key')));
      expect(results.map((r) => r.remaining).sort((a, b) => b - a)).toEqual([599, 598, 597, 596]);
      await Promise.all(limits.map((l) => l.close()));
      await Promise.all(connections.map((c) => c.close()));
    } finally {
      await shared.close();
    }
  });

  for (const store of ['postgres', 'redis'] as const) {
    it(`allows 600/min per token across two servers, not 1200 (${store})`, async () => {
      const pg = testDatabases.find((d) => d.name === 'postgres')!;
      const shared = await pg.open();
      const env: Record<string, string> =
        store === 'redis' ? { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' } : {};
      const a = await startTestApp({ shared, env });
      const b = await startTestApp({ shared, env });
      try {
        const token = await a.token(`shared-${store}-${Date.now()}`);
        let ok = 0;
        let limited = 0;
        for (let i = 0; i < 660; i++) {
          const res = await (i % 2 ? a : b).call(token, 'GET', '/v1/workspaces');
          await res.arrayBuffer();
          if (res.status === 200) ok++;
          else if (res.status === 429) limited++;
        }
        expect(ok).toBe(600);
        expect(limited).toBe(60);
      } finally {
        await a.close();
        await b.close();
        await shared.close();
      }
    });
  }
});
