import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, createCustodyClient, CustodyApiError, type CustodyClient } from '../../client/src/index.ts';
import { jsonOf, startTestApp, type TestApp } from '../support/app.ts';

describe('the typed client against the real server', () => {
  let app: TestApp;
  let creds: { clientId: string; clientSecret: string };
  const newClient = (extra: Partial<Parameters<typeof createCustodyClient>[0]> = {}): CustodyClient =>
    createCustodyClient({ baseUrl: app.url, ...creds, ...extra });

  beforeAll(async () => {
    app = await startTestApp({ workers: false, env: { RATE_LIMIT_SEARCH_PER_MINUTE: '1' } });
    creds = await app.client('client-tests');
  });
  afterAll(() => app?.close());

  it('signs in with client credentials and iterates every page of a list', async () => {
    const custody = newClient();
    await custody.signIn();
    const names = ['A', 'B', 'C', 'D', 'E'].map((n) => `Matter ${n}`);
    for (const name of names)
      await custody.ok(custody.api.POST('/v1/workspaces', { body: { name, description: 'client test' } }));
    const pagesFetched: Array<string | undefined> = [];
    const rows = custody.each(async (cursor) => {
      pagesFetched.push(cursor);
      const page = await custody.ok(custody.api.GET('/v1/workspaces', { params: { query: { limit: 2, cursor } } }));
      return { items: page.items, next: page.cursor };
    });
    const seen = (await collect(rows)).map((w) => w.name);
    expect(seen.sort()).toEqual(names);
    expect(pagesFetched).toHaveLength(3);
    expect(pagesFetched[0]).toBeUndefined();
  });

  it('rotates the refresh token when the access token is about to expire', async () => {
    let clock = Date.now();
    const custody = newClient({ now: () => clock });
    await custody.signIn();
    const first = custody.session.refreshToken!;
    clock += 3600_000; // the default access-token lifetime has passed
    await custody.ok(custody.api.GET('/v1/workspaces'));
    const second = custody.session.refreshToken!;
    expect(second).not.toBe(first);
    // The rotated-out refresh token is dead (and presenting it revokes the family).
    const reuse = await app.call(null, 'POST', '/v1/oauth/token', {
      form: {
        grant_type: 'refresh_token',
        refresh_token: first,
        client_id: creds.clientId,
        client_secret: creds.clientSecret,
      },
    });
    expect(reuse.status).toBe(400);
  });

  it('signs in again when its token family was revoked behind its back', async () => {
    const custody = newClient();
    await custody.signIn();
    const stolen = custody.session.refreshToken!;
    const form = {
      grant_type: 'refresh_token',
      refresh_token: stolen,
      client_id: creds.clientId,
      client_secret: creds.clientSecret,
    };
    await jsonOf(await app.call(null, 'POST', '/v1/oauth/token', { form }), 200);
    expect((await app.call(null, 'POST', '/v1/oauth/token', { form })).status).toBe(400); // reuse: the family dies
    const list = await custody.ok(custody.api.GET('/v1/workspaces'));
    expect(Array.isArray(list.items)).toBe(true);
    expect(custody.session.refreshToken).not.toBe(stolen);
  });

  it('starts from a kept access token while it is valid, and signs in (telling onTokens) once it is refused', async () => {
    const issued: string[] = [];
    const first = newClient({ onTokens: (pair) => issued.push(pair.access_token) });
    await first.ok(first.api.GET('/v1/workspaces'));
    expect(issued).toHaveLength(1);
    const kept = { access_token: issued[0], expires_at: Date.now() + 600_000 };

    // A later process with the kept token: no sign-in at all.
    const tokenRequests: string[] = [];
    const counting = (input: Request | string | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/v1/oauth/token')) tokenRequests.push(url);
      return fetch(input, init);
    };
    const later = newClient({ token: kept, fetch: counting, onTokens: (pair) => issued.push(pair.access_token) });
    await later.ok(later.api.GET('/v1/workspaces'));
    await later.ok(later.api.GET('/v1/workspaces'));
    expect(tokenRequests).toEqual([]);

    // A kept token the service refuses (garbage here) is replaced by a fresh sign-in, which onTokens hears of.
    const refused = newClient({
      token: { access_token: 'not-a-token', expires_at: Date.now() + 600_000 },
      fetch: counting,
      onTokens: (pair) => issued.push(pair.access_token),
    });
    await refused.ok(refused.api.GET('/v1/workspaces'));
    expect(tokenRequests).toHaveLength(1);
    expect(issued).toHaveLength(2);
  });

  it('throws errors that carry the service error body', async () => {
    const custody = newClient();
    const err = await custody
      .ok(custody.api.GET('/v1/collections/{id}', { params: { path: { id: 'no-such-collection' } } }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CustodyApiError);
    const apiErr = err as CustodyApiError;
    expect(apiErr.status).toBe(404);
    expect(apiErr.code).toBe('00404_not_found');
    expect(apiErr.detail).toBe((apiErr.body as { detail: string }).detail);
    expect(apiErr.detail.length).toBeGreaterThan(0);
    expect(apiErr.correlationId).toMatch(/\S+/);
  });

  it('gives a token error in RFC 6749 form for wrong credentials', async () => {
    const custody = createCustodyClient({ baseUrl: app.url, clientId: creds.clientId, clientSecret: 'wrong' });
    const err = (await custody.signIn().catch((e: unknown) => e)) as CustodyApiError;
    expect(err).toBeInstanceOf(CustodyApiError);
    expect(err.status).toBe(401);
    expect(err.code).toBe('invalid_client');
  });

  it('waits Retry-After on a real 429 and gives up after maxRetries', async () => {
    const waits: number[] = [];
    const custody = newClient({ sleep: async (ms) => void waits.push(ms), maxRetries: 2 });
    // The search budget is 1/min here: the first search passes, the next is refused until the window resets.
    await custody.ok(custody.api.POST('/v1/search', { body: { query: 'anything' } }));
    const err = (await custody
      .ok(custody.api.POST('/v1/search', { body: { query: 'anything' } }))
      .catch((e: unknown) => e)) as CustodyApiError;
    expect(err).toBeInstanceOf(CustodyApiError);
    expect(err.status).toBe(429);
    expect(waits).toHaveLength(2);
    for (const w of waits) expect(w).toBeGreaterThan(0);
    expect(waits[0] % 1000).toBe(0); // whole seconds from Retry-After
  });

  it('retries a 429 and returns the answer that follows', async () => {
    const waits: number[] = [];
    let refused = 0;
    const custody = newClient({
      sleep: async (ms) => void waits.push(ms),
      fetch: async (input, init) => {
        const req = input instanceof Request ? input : new Request(input, init);
        if (new URL(req.url).pathname === '/v1/workspaces' && refused < 2) {
          refused++;
          return new Response('{}', { status: 429, headers: { 'retry-after': String(refused * 3) } });
        }
        return fetch(req);
      },
    });
    const list = await custody.ok(custody.api.GET('/v1/workspaces'));
    expect(Array.isArray(list.items)).toBe(true);
    expect(waits).toEqual([3000, 6000]);
  });
});
