import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const errorShape = (status: number) =>
  expect.objectContaining({
    code: expect.stringMatching(new RegExp(`^00${status}_[a-z_]+$`)),
    id: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
    links: { about: expect.stringMatching(/^https?:\/\//) },
  });

const confFilters = {
  account_owners: { all_selected: true, selected: [], excluded: [] },
  content_selections: { all_selected: false, selected: [{ video: true }, { transcript: true }], excluded: [] },
};

describe.each(testDatabases.map((d) => [d.name, d] as const))('service core on %s', (_name, database) => {
  let t: TestApp;
  let token: string;
  let other: string;

  beforeAll(async () => {
    t = await startTestApp({ database });
    token = await t.token('acme');
    other = await t.token('globex');
  });
  afterAll(() => t.close());

  async function json(res: Response) {
    return (await res.json()) as Record<string, any>;
  }
  async function setup(tok = token, type = 'conf') {
    const ws = await json(
      await t.call(tok, 'POST', '/v1/workspaces', { json: { name: 'Case 42', description: 'Matter' } }),
    );
    const wal = await json(
      await t.call(tok, 'POST', '/v1/wallet', {
        json: { name: 'Zoom', credential_type_name: 'Datasource', config_type: type },
      }),
    );
    const col = await t.call(tok, 'POST', '/v1/collections', {
      json: { name: 'Zoom meetings', onna_parent_id: ws.onna_id, type, credential_id: wal.onna_id },
    });
    return {
      ws: ws.onna_id as string,
      wallet: wal.onna_id as string,
      col: (await json(col)).onna_id as string,
      createStatus: col.status,
    };
  }

  it('creates workspaces, wallets and collections with the spec status codes and bodies', async () => {
    const ws = await t.call(token, 'POST', '/v1/workspaces', { json: { name: 'W', description: 'd' } });
    expect(ws.status).toBe(201);
    expect(Object.keys(await json(ws))).toEqual(['onna_id']);
    const { col, createStatus, ws: wsId, wallet } = await setup();
    expect(createStatus).toBe(201);
    const got = await json(await t.call(token, 'GET', `/v1/collections/${col}`));
    expect(got).toMatchObject({
      onna_id: col,
      type: 'conf',
      onna_parent_id: wsId,
      credential_id: wallet,
      sync_status: 'created',
      type_sync: 'one',
      sync_filters: null,
      credentials_paired: false,
      latest_run: null,
    });
    const walletRead = await json(await t.call(token, 'GET', `/v1/wallet/${wallet}`));
    expect(walletRead).toMatchObject({ onna_id: wallet, config_type: 'conf', paired: false });
    expect(JSON.stringify(walletRead)).not.toMatch(/token|secret/i);
  });

  it('answers 401 in the error shape without a token, with a bad token, and does not count them', async () => {
    for (const auth of [undefined, 'Bearer nope', 'Basic abc']) {
      const res = await fetch(`${t.url}/v1/workspaces`, { headers: auth ? { authorization: auth } : {} });
      expect(res.status).toBe(401);
      const body = await json(res);
      expect(body).toEqual(errorShape(401));
      expect(body.id).toBe(res.headers.get('x-correlation-id'));
      expect(res.headers.get('ratelimit-remaining')).toBeNull();
    }
  });

  it('echoes a well-formed X-Correlation-ID and replaces a malformed one', async () => {
    const good = await t.call(token, 'GET', '/v1/workspaces/ws_unknown', {
      headers: { 'x-correlation-id': 'abc-123-XYZ-789' },
    });
    expect(good.headers.get('x-correlation-id')).toBe('abc-123-XYZ-789');
    expect((await json(good)).id).toBe('abc-123-XYZ-789');
    const bad = await t.call(token, 'GET', '/v1/workspaces', { headers: { 'x-correlation-id': 'bad id with spaces' } });
    expect(bad.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("isolates accounts: another account's ids answer 404 exactly like unknown ids", async () => {
    const mine = await setup();
    for (const [method, path] of [
      ['GET', `/v1/workspaces/${mine.ws}`],
      ['GET', `/v1/workspaces/${mine.ws}/collections`],
      ['GET', `/v1/wallet/${mine.wallet}`],
      ['GET', `/v1/collections/${mine.col}`],
      ['PATCH', `/v1/collections/${mine.col}`],
      ['POST', `/v1/collections/${mine.col}/start`],
      ['DELETE', `/v1/collections/${mine.col}`],
      ['DELETE', `/v1/workspaces/${mine.ws}`],
    ] as const) {
      const foreign = await t.call(other, method, path, method === 'PATCH' ? { json: { type_sync: 'one' } } : {});
      const unknown = await t.call(
        other,
        method,
        path.replace(/(ws|wal|col)_[0-9a-f]+/, '$1_000000000000000000000000'),
        method === 'PATCH' ? { json: { type_sync: 'one' } } : {},
      );
      expect([path, foreign.status]).toEqual([path, 404]);
      expect(unknown.status).toBe(404);
      const [a, b] = [await json(foreign), await json(unknown)];
      expect(a.code).toBe(b.code);
      expect(a.detail).toBe(b.detail);
    }
    // a collection may not reference another account's workspace or wallet
    const theirs = await setup(other);
    const res = await t.call(token, 'POST', '/v1/collections', {
      json: { name: 'x', onna_parent_id: theirs.ws, type: 'conf', credential_id: theirs.wallet },
    });
    expect(res.status).toBe(404);
    expect((await json(res)).source).toEqual({ pointer: '/body/onna_parent_id' });
  });

  it('rejects bad input with 4xx in the error shape naming the field', async () => {
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', '/v1/workspaces', { name: 'x' }, 400, '/body/description'],
      ['POST', '/v1/workspaces', { name: 'x', description: 'y', extra: 1 }, 400, '/body/extra'],
      [
        'POST',
        '/v1/wallet',
        { name: 'x', credential_type_name: 'Datasource', config_type: 'dropbox' },
        400,
        '/body/config_type',
      ],
    ];
    for (const [method, path, body, status, pointer] of cases) {
      const res = await t.call(token, method, path, { json: body });
      expect([path, res.status]).toEqual([path, status]);
      const b = await json(res);
      expect(b).toEqual(errorShape(status));
      expect(b.source).toEqual({ pointer });
    }
    const ws = await json(await t.call(token, 'POST', '/v1/workspaces', { json: { name: 'a', description: 'b' } }));
    const edriveWallet = await json(
      await t.call(token, 'POST', '/v1/wallet', {
        json: { name: 'od', credential_type_name: 'Datasource', config_type: 'edrive' },
      }),
    );
    const mismatch = await t.call(token, 'POST', '/v1/collections', {
      json: { name: 'c', onna_parent_id: ws.onna_id, type: 'conf', credential_id: edriveWallet.onna_id },
    });
    expect(mismatch.status).toBe(400);
    expect((await json(mismatch)).source).toEqual({ pointer: '/body/credential_id' });
    const badType = await t.call(token, 'POST', '/v1/collections', {
      json: { name: 'c', onna_parent_id: ws.onna_id, type: 'dropbox', credential_id: edriveWallet.onna_id },
    });
    expect(badType.status).toBe(400);
    const notJson = await fetch(`${t.url}/v1/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(notJson.status).toBe(400);
    expect(await json(notJson)).toEqual(errorShape(400));
  });

  it('validates conf filters strictly and replaces them on PATCH', async () => {
    const { col } = await setup();
    const bad: Array<[unknown, string]> = [
      [{ ...confFilters, users: [] }, '/body/sync_filters/users'],
      ['everything', '/body/sync_filters'],
      [null, '/body/sync_filters'],
      [{ ...confFilters, channels: {} }, '/body/sync_filters/channels'],
      [{ content_selections: confFilters.content_selections }, '/body/sync_filters/account_owners'],
      [
        { ...confFilters, account_owners: { all_selected: 'yes', selected: [], excluded: [] } },
        '/body/sync_filters/account_owners/all_selected',
      ],
      [
        {
          ...confFilters,
          content_selections: { all_selected: false, selected: [{ video: true, audio: true }], excluded: [] },
        },
        '/body/sync_filters/content_selections/selected/0',
      ],
      [
        { ...confFilters, content_selections: { all_selected: false, selected: [{ slides: true }], excluded: [] } },
        '/body/sync_filters/content_selections/selected/0',
      ],
      [
        { ...confFilters, chats: { all_selected: false, selected: [{ 'one-to-one': 'yes' }], excluded: [] } },
        '/body/sync_filters/chats/selected/0/one-to-one',
      ],
      [
        {
          ...confFilters,
          chats: {
            all_selected: false,
            selected: [{ channels: { all_selected: false, selected: [{ name: 'x' }], excluded: [] } }],
            excluded: [],
          },
        },
        '/body/sync_filters/chats/selected/0/channels/selected/0/name',
      ],
    ];
    for (const [filters, pointer] of bad) {
      const res = await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: filters } });
      expect([pointer, res.status]).toEqual([pointer, 422]);
      const body = await json(res);
      expect(body.source).toEqual({ pointer });
      if (pointer.endsWith('/users'))
        expect(body.detail).toMatch(/allowed keys: account_owners, content_selections, chats/);
    }
    const full = {
      ...confFilters,
      chats: {
        all_selected: false,
        selected: [
          { 'one-to-one': true },
          { channels: { all_selected: true, selected: [], excluded: [{ id: 'c1' }] } },
        ],
        excluded: [],
      },
    };
    expect(
      (await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: full, type_sync: 'arch' } }))
        .status,
    ).toBe(204);
    expect((await json(await t.call(token, 'GET', `/v1/collections/${col}`))).sync_filters).toEqual(full);
    // replacement rule: omitted keys are removed, not merged
    expect(
      (await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: confFilters } })).status,
    ).toBe(204);
    const after = await json(await t.call(token, 'GET', `/v1/collections/${col}`));
    expect(after.sync_filters).toEqual(confFilters);
    expect(after.type_sync).toBe('arch');
    const badSync = await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { type_sync: 'sometimes' } });
    expect(badSync.status).toBe(400);
    const writeSyncing = await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_status: 'syncing' } });
    expect(writeSyncing.status).toBe(400);
  });

  it('validates edrive filters: user-id keys with user_folders selections', async () => {
    const { col } = await setup(token, 'edrive');
    const good = {
      'user-1': {
        all_selected: false,
        selected: [{ id: 'f1' }],
        excluded: [],
        filter_type: 'user_folders',
        filter_name: 'User drive',
      },
    };
    expect((await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: good } })).status).toBe(204);
    const bad: Array<[unknown, string]> = [
      [{ users: [] }, '/body/sync_filters/users'],
      [{ 'user-1': { ...good['user-1'], filter_type: 'folders' } }, '/body/sync_filters/user-1/filter_type'],
      [{ 'user-1': { ...good['user-1'], selected: [{ id: 5 }] } }, '/body/sync_filters/user-1/selected/0/id'],
      [{ 'user-1': { ...good['user-1'], sync_future: false } }, '/body/sync_filters/user-1/sync_future'],
    ];
    for (const [filters, pointer] of bad) {
      const res = await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: filters } });
      expect([pointer, res.status]).toEqual([pointer, 422]);
      expect((await json(res)).source).toEqual({ pointer });
    }
  });

  it('refuses to start without filters or credentials, naming what is missing', async () => {
    const { col } = await setup();
    const res = await t.call(token, 'POST', `/v1/collections/${col}/start`);
    expect(res.status).toBe(409);
    const body = await json(res);
    expect(body.detail).toMatch(/sync filters.*paired credentials/);
    expect(body.code).toBe('00409_not_ready');
    await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: confFilters } });
    const res2 = await t.call(token, 'POST', `/v1/collections/${col}/start`);
    expect(res2.status).toBe(409);
    expect((await json(res2)).detail).not.toMatch(/sync filters/);
    const pending = await t.call(token, 'PATCH', `/v1/collections/${(await setup()).col}`, {
      json: { sync_status: 'pending' },
    });
    expect(pending.status).toBe(409);
    expect((await json(pending)).code).toBe('00409_not_ready');
  });

  it('lists workspaces and their collections with cursor paging', async () => {
    const tok = await t.token('paging-co');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (await json(await t.call(tok, 'POST', '/v1/workspaces', { json: { name: `w${i}`, description: '' } }))).onna_id,
      );
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Record<string, any> = await json(
        await t.call(tok, 'GET', `/v1/workspaces?limit=2${cursor ? `&cursor=${cursor}` : ''}`),
      );
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((w: { onna_id: string }) => w.onna_id));
      cursor = page.cursor;
    } while (cursor);
    expect([...seen].sort()).toEqual([...ids].sort());
    expect((await t.call(tok, 'GET', '/v1/workspaces?cursor=garbage')).status).toBe(400);
    const one = await json(await t.call(tok, 'GET', `/v1/workspaces/${ids[0]}`));
    expect(one).toMatchObject({ onna_id: ids[0], name: 'w0', description: '' });
  });

  it('deletes collections and workspaces: 204, then 404', async () => {
    const a = await setup();
    expect((await t.call(token, 'DELETE', `/v1/collections/${a.col}`)).status).toBe(204);
    expect((await t.call(token, 'DELETE', `/v1/collections/${a.col}`)).status).toBe(404);
    expect((await t.call(token, 'GET', `/v1/collections/${a.col}`)).status).toBe(404);
    const b = await setup();
    expect((await t.call(token, 'DELETE', `/v1/workspaces/${b.ws}`)).status).toBe(204);
    expect((await t.call(token, 'DELETE', `/v1/workspaces/${b.ws}`)).status).toBe(404);
    expect((await t.call(token, 'GET', `/v1/collections/${b.col}`)).status).toBe(404);
  });

  it('serves health, readiness and the OpenAPI document without a token', async () => {
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect(await json(await fetch(`${t.url}/readyz`))).toEqual({ status: 'ready' });
    const doc = await json(await fetch(`${t.url}/v1/openapi.json`));
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/workspaces', '/v1/collections/{id}', '/v1/oauth/token']),
    );
    expect((await fetch(`${t.url}/docs`, { redirect: 'follow' })).status).toBe(200);
  });
});
