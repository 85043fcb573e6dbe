import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import {
  CHANNELS,
  consent,
  fakeConfConnector,
  fakeDriveConnector,
  pair,
  startFakeProvider,
  USERS,
  type FakeProvider,
} from '../support/fake-oauth-connector.ts';

const CB = 'https://client.example/cb';

describe.each(testDatabases.map((d) => [d.name, d] as const))('discovery on %s', (_name, database) => {
  let t: TestApp;
  let p: FakeProvider;
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    p = await startFakeProvider();
    t = await startTestApp({ database, connectors: () => [fakeConfConnector(p), fakeDriveConnector(p)] });
    acme = await t.token('acme', [CB]);
    globex = await t.token('globex', [CB]);
  });
  afterAll(async () => {
    await t.close();
    await p.close();
  });
  beforeEach(() => {
    p.failWith = null;
    p.calls.api.length = 0;
    p.calls.grantInfo.length = 0;
    p.calls.refresh.length = 0;
  });

  const json = async (res: Response) => (await res.json()) as Record<string, any>;
  const get = (bearer: string, path: string) => t.call(bearer, 'GET', path);

  async function collection(bearer: string, type: string) {
    const ws = await json(await t.call(bearer, 'POST', '/v1/workspaces', { json: { name: 'Case', description: 'd' } }));
    const wal = await json(
      await t.call(bearer, 'POST', '/v1/wallet', {
        json: { name: 'W', credential_type_name: 'Datasource', config_type: type },
      }),
    );
    const col = await json(
      await t.call(bearer, 'POST', '/v1/collections', {
        json: { name: 'C', onna_parent_id: ws.onna_id, type, credential_id: wal.onna_id },
      }),
    );
    return { id: col.onna_id as string, wallet: wal.onna_id as string };
  }
  async function pairedConf(code = 'acc') {
    const col = await collection(acme, 'conf');
    expect((await pair(t, acme, col.id, await consent(t, acme, 'conf', { code }, CB))).status).toBe(204);
    return col;
  }
  async function pairedDrive(tenant = 'tenant-1') {
    const col = await collection(acme, 'edrive');
    expect(
      (await pair(t, acme, col.id, await consent(t, acme, 'edrive', { admin_consent: 'True', tenant }, CB))).status,
    ).toBe(204);
    return col;
  }
  async function grantOf(walletId: string) {
    const row = await t.runtime.ctx.db
      .selectFrom('wallets')
      .selectAll()
      .where('id', '=', walletId)
      .executeTakeFirstOrThrow();
    return { version: row.grant_version, grant: t.runtime.ctx.sealer.open<Record<string, string>>(row.sealed_grant!) };
  }

  it('answers 409 for every kind while the collection is not paired, without calling the provider', async () => {
    const conf = await collection(acme, 'conf');
    const drive = await collection(acme, 'edrive');
    for (const path of [
      `/v1/collections/${conf.id}/users`,
      `/v1/collections/${conf.id}/channels?user=u1`,
      `/v1/collections/${drive.id}/folders?user_id=u1`,
    ]) {
      const res = await get(acme, path);
      expect(res.status).toBe(409);
      expect(await json(res)).toMatchObject({
        code: '00409_conflict',
        detail: expect.stringMatching(/pair_credentials/),
      });
    }
    expect(p.calls.api).toHaveLength(0);
  });

  it('pages conf users with the paired token, keeping every profile field, and shows connectors no secret', async () => {
    const col = await pairedConf('pager');
    const { grant } = await grantOf(col.wallet);
    const first = await get(acme, `/v1/collections/${col.id}/users?limit=2`);
    expect(first.status).toBe(200);
    const page1 = await json(first);
    expect(Object.keys(page1).sort()).toEqual(['next_page_token', 'results']);
    expect(page1.results).toEqual(USERS.slice(0, 2).map((u) => ({ id: u.id, data: u })));
    expect(page1.next_page_token).toBe('2');

    const ids = page1.results.map((r: { id: string }) => r.id);
    let offset: string | null = page1.next_page_token;
    for (let i = 0; offset !== null && i < 10; i++) {
      const page = await json(await get(acme, `/v1/collections/${col.id}/users?limit=2&offset=${offset}`));
      ids.push(...page.results.map((r: { id: string }) => r.id));
      offset = page.next_page_token;
    }
    expect(offset).toBeNull();
    expect(ids).toEqual(USERS.map((u) => u.id));

    expect(p.calls.api.every((c) => c.token === grant.access_token)).toBe(true);
    for (const info of p.calls.grantInfo) {
      expect(info).toMatchObject({ account_id: 'acct-pager' });
      expect(JSON.stringify(info)).not.toMatch(/at-|rt-|access_token|refresh_token/);
    }
  });

  it('lists conf channels of a user: user required, unknown user 404, extra fields kept', async () => {
    const col = await pairedConf();
    const ok = await get(acme, `/v1/collections/${col.id}/channels?user=u1&limit=500`);
    expect(ok.status).toBe(200);
    // "larger values clamped": however large
    expect((await get(acme, `/v1/collections/${col.id}/channels?user=u1&limit=100000000000`)).status).toBe(200);
    expect(await json(ok)).toEqual({ results: CHANNELS.u1, next_page_token: null });

    const missing = await get(acme, `/v1/collections/${col.id}/channels`);
    expect(missing.status).toBe(400);
    expect(await json(missing)).toMatchObject({ source: { pointer: '/querystring/user' } });
    const unknown = await get(acme, `/v1/collections/${col.id}/channels?user=ghost`);
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ code: '00404_not_found', detail: 'user ghost not found.' });
  });

  it('answers 400 for a kind the collection type does not offer, naming the types that do', async () => {
    const conf = await pairedConf();
    const drive = await pairedDrive();
    const folders = await get(acme, `/v1/collections/${conf.id}/folders?user_id=u1`);
    expect(folders.status).toBe(400);
    expect((await json(folders)).detail).toBe('folders are available for edrive collections only.');
    const channels = await get(acme, `/v1/collections/${drive.id}/channels?user=u1`);
    expect(channels.status).toBe(400);
    expect((await json(channels)).detail).toBe('channels are available for conf collections only.');
  });

  it("answers 404 for another account's collection and for unknown ids", async () => {
    const col = await pairedConf();
    for (const [bearer, id] of [
      [globex, col.id],
      [acme, 'col_unknown'],
    ] as const) {
      const res = await get(bearer, `/v1/collections/${id}/users`);
      expect(res.status).toBe(404);
      expect(await json(res)).toMatchObject({ code: '00404_not_found' });
    }
    expect(p.calls.api).toHaveLength(0);
  });

  it('rejects malformed and unknown query parameters with 400 naming the field', async () => {
    const col = await pairedConf();
    const bad = await get(acme, `/v1/collections/${col.id}/users?limit=abc`);
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ source: { pointer: '/querystring/limit' } });
    expect((await get(acme, `/v1/collections/${col.id}/users?limit=0`)).status).toBe(400);
    expect((await get(acme, `/v1/collections/${col.id}/users?page=2`)).status).toBe(400);
  });

  it('lists edrive users and folders with an app token acquired after admin consent', async () => {
    const col = await pairedDrive('tenant-7');
    expect((await grantOf(col.wallet)).grant).toEqual({ tenant_id: 'tenant-7' });

    const users = await json(await get(acme, `/v1/collections/${col.id}/users?limit=3`));
    expect(Object.keys(users).sort()).toEqual(['entries', 'limit', 'next_marker']);
    expect(users.limit).toBe(3);
    expect(users.next_marker).toBe('3');
    expect(users.entries[0]).toEqual({
      id: 'u1',
      display_name: 'First1 Last1',
      mail: 'user1@example.test',
      user_principal_name: 'user1@example.test',
      job_title: null,
      department: 'Legal',
      office_location: null,
      account_enabled: true,
    });
    const last = await json(await get(acme, `/v1/collections/${col.id}/users?limit=3&marker=3`));
    expect(last.entries.map((e: { id: string }) => e.id)).toEqual(['u4', 'u5']);
    expect(last.next_marker).toBeNull();

    // The app token was acquired once, persisted, and is what the provider saw.
    const stored = await grantOf(col.wallet);
    expect(p.calls.refresh).toHaveLength(1);
    expect(stored.grant.access_token).toMatch(/^app-/);
    expect(p.calls.api.every((c) => c.token === stored.grant.access_token)).toBe(true);
    expect(p.calls.grantInfo[0]).toEqual({ tenant_id: 'tenant-7' });
    expect(p.calls.grantInfo.at(-1)).toEqual({ tenant_id: 'tenant-7', expires_at: stored.grant.expires_at });

    const root = await json(await get(acme, `/v1/collections/${col.id}/folders?user_id=u1`));
    expect(root).toEqual({
      results: [
        {
          id: 'f1',
          name: 'Contracts',
          link: 'https://drive.example/f1',
          size: 1234,
          created_datetime: '2024-01-02T03:04:05Z',
          last_modified_datetime: '2024-02-03T04:05:06Z',
          sorted_path_elements: [{ id: 'f1', name: 'Contracts' }],
          child_count: 1,
        },
      ],
      total_count_label: '1 folders',
      _next: null,
    });
    const child = await json(await get(acme, `/v1/collections/${col.id}/folders?user_id=u1&parent_id=f1`));
    expect(child.results[0].sorted_path_elements).toEqual([
      { id: 'f1', name: 'Contracts' },
      { id: 'f2', name: '2024' },
    ]);
    expect((await get(acme, `/v1/collections/${col.id}/folders?user_id=nodrive`)).status).toBe(404);
    expect((await get(acme, `/v1/collections/${col.id}/folders`)).status).toBe(400);
  });

  it('uses the new grant at once after pairing again', async () => {
    const col = await pairedConf('old');
    await get(acme, `/v1/collections/${col.id}/users`);
    const oldToken = (await grantOf(col.wallet)).grant.access_token;
    expect(p.calls.api.at(-1)!.token).toBe(oldToken);

    expect((await pair(t, acme, col.id, await consent(t, acme, 'conf', { code: 'new' }, CB))).status).toBe(204);
    await get(acme, `/v1/collections/${col.id}/users`);
    const newToken = (await grantOf(col.wallet)).grant.access_token;
    expect(newToken).not.toBe(oldToken);
    expect(p.calls.api.at(-1)!.token).toBe(newToken);
    expect(p.calls.grantInfo.at(-1)).toMatchObject({ account_id: 'acct-new' });
  });

  it('answers 409 when the provider revokes the grant, and 502 when it fails, without leaking a token', async () => {
    const col = await pairedConf('revoked');
    const { grant } = await grantOf(col.wallet);
    p.accessTokens.delete(grant.access_token);
    p.refreshTokens.delete(grant.refresh_token);
    const revoked = await get(acme, `/v1/collections/${col.id}/users`);
    expect(revoked.status).toBe(409);
    const body = await revoked.text();
    expect(JSON.parse(body).detail).toMatch(/pair_credentials again/);
    expect(p.calls.refresh).toHaveLength(1);

    const healthy = await pairedConf('flaky');
    p.failWith = 500;
    const failed = await get(acme, `/v1/collections/${healthy.id}/users`);
    expect(failed.status).toBe(502);
    const failedBody = await failed.text();
    expect(JSON.parse(failedBody)).toMatchObject({
      code: '00502_bad_gateway',
      detail: expect.stringMatching(/HTTP 500/),
    });
    for (const text of [body, failedBody]) expect(text).not.toMatch(/at-|rt-|Bearer/);
    expect(p.calls.api.filter((c) => c.path === '/api/users').length).toBeGreaterThanOrEqual(3);
  });
});
