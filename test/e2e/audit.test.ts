import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRepo } from '../../src/store/audit.ts';
import { inertConnectors } from '../search/inert-connectors.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

type Json = Record<string, any>;

describe.each(testDatabases.map((d) => [d.name, d] as const))('audit log on %s', (_name, database) => {
  let t: TestApp;

  const json = async (res: Response) => (await res.json()) as Json;
  const tokenForm = (form: Record<string, string>) => t.call(null, 'POST', '/v1/oauth/token', { form });
  async function entries(tok: string, query = ''): Promise<Json[]> {
    const res = await t.call(tok, 'GET', `/v1/audit?limit=200${query}`);
    expect(res.status).toBe(200);
    return (await json(res)).items as Json[];
  }

  beforeAll(async () => {
    t = await startTestApp({ database, workers: false, connectors: inertConnectors });
  });
  afterAll(() => t.close());

  it('records each state-changing call exactly once, with who, what, target, outcome and correlation id, and no secret', async () => {
    const { clientId, clientSecret } = await t.client('initech');
    const issued = await tokenForm({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    });
    expect(issued.status).toBe(200);
    const first = await json(issued);
    const token = first.access_token as string;
    const refreshed = await json(
      await tokenForm({
        grant_type: 'refresh_token',
        client_id: clientId,
        client_secret: clientSecret,
        refresh_token: first.refresh_token,
      }),
    );
    expect(refreshed.access_token).toEqual(expect.any(String));
    // Replaying the rotated refresh token revokes the family (its access tokens stop working).
    const replay = await tokenForm({
      grant_type: 'refresh_token',
      client_id: clientId,
      client_secret: clientSecret,
      refresh_token: first.refresh_token,
    });
    expect(replay.status).toBe(400);
    expect(
      (await tokenForm({ grant_type: 'client_credentials', client_id: clientId, client_secret: 'wrong' })).status,
    ).toBe(401);
    expect(
      (await tokenForm({ grant_type: 'client_credentials', client_id: 'cli_unknown', client_secret: 'x' })).status,
    ).toBe(401);
    const tok = (
      await json(
        await tokenForm({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
      )
    ).access_token as string;
    expect((await t.call(token, 'GET', '/v1/workspaces')).status).toBe(401);

    const cid = (n: number) => `audit-test-correlation-${n}`;
    const call = (method: string, path: string, n: number, body?: Json) =>
      t.call(tok, method, path, { json: body, headers: { 'x-correlation-id': cid(n) } });
    const ws = (await json(await call('POST', '/v1/workspaces', 1, { name: 'Audit', description: 'd' }))).onna_id;
    const wallet = (
      await json(
        await call('POST', '/v1/wallet', 2, { name: 'w', credential_type_name: 'Datasource', config_type: 'conf' }),
      )
    ).onna_id;
    const col = (
      await json(
        await call('POST', '/v1/collections', 3, {
          name: 'c',
          onna_parent_id: ws,
          type: 'conf',
          credential_id: wallet,
        }),
      )
    ).onna_id;
    expect((await call('PATCH', `/v1/collections/${col}`, 4, { sync_filters: {}, type_sync: 'auto' })).status).toBe(
      204,
    );
    expect((await call('POST', `/v1/collections/${col}/start`, 5)).status).toBe(409);
    expect(
      (await call('POST', `/v1/collections/${col}/pair_credentials?auth_code=secret-pairing-code`, 6)).status,
    ).toBe(400);
    const hold = (await json(await call('POST', '/v1/legalhold/holds', 7, { name: 'H', collection_ids: [col] })))
      .onna_id;
    expect((await call('DELETE', `/v1/collections/${col}`, 8)).status).toBe(409);
    expect((await call('DELETE', `/v1/legalhold/holds/${hold}`, 9)).status).toBe(204);
    expect((await call('DELETE', `/v1/collections/${col}`, 10)).status).toBe(204);
    expect((await call('DELETE', `/v1/workspaces/${ws}`, 11)).status).toBe(204);
    // Reads, searches and unauthenticated calls are not actions.
    await call('GET', `/v1/workspaces`, 12);
    await call('POST', '/v1/search', 13, { query: 'anything' });
    await t.call(null, 'POST', '/v1/workspaces', { json: { name: 'x', description: '' } });

    const log = await entries(tok);
    const actions = log.map((e) => `${e.action} ${e.outcome} ${e.status_code}`).reverse();
    expect(actions).toEqual([
      'token.issue success 200',
      'token.refresh success 200',
      'token.revoke failure 400',
      'token.issue failure 401',
      'token.issue success 200',
      'workspace.create success 201',
      'wallet.create success 201',
      'collection.create success 201',
      'collection.update success 204',
      'collection.start failure 409',
      'collection.pair failure 400',
      'legalhold.create success 201',
      'collection.delete failure 409',
      'legalhold.release success 204',
      'collection.delete success 204',
      'workspace.delete success 204',
    ]);
    const byCid = new Map(
      log.filter((e) => e.correlation_id?.startsWith('audit-test')).map((e) => [e.correlation_id, e]),
    );
    expect(byCid.size).toBe(11);
    expect(byCid.get(cid(1))).toMatchObject({
      target_id: ws,
      client_id: clientId,
      detail: { fields: ['description', 'name'] },
    });
    expect(byCid.get(cid(3))).toMatchObject({ target_id: col });
    expect(byCid.get(cid(4))).toMatchObject({ target_id: col, detail: { fields: ['sync_filters', 'type_sync'] } });
    expect(byCid.get(cid(7))).toMatchObject({ target_id: hold });
    expect(byCid.get(cid(9))).toMatchObject({ target_id: hold });
    expect(byCid.get(cid(11))).toMatchObject({ target_id: ws });
    for (const e of log) {
      expect(e).toMatchObject({
        id: expect.stringMatching(/^aud_/),
        datetime: expect.any(String),
        client_id: clientId,
      });
      expect(e.account_id).toMatch(/^acc_/);
    }
    expect(log.filter((e) => e.action.startsWith('token.')).every((e) => e.target_id === clientId)).toBe(true);
    const text = JSON.stringify(log);
    for (const secret of [
      clientSecret,
      first.access_token,
      first.refresh_token,
      refreshed.refresh_token,
      tok,
      'secret-pairing-code',
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('filters by action and target, pages newest first, and shows only the caller account', async () => {
    const tok = await t.token('hooli');
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push(
        (await json(await t.call(tok, 'POST', '/v1/workspaces', { json: { name: `w${i}`, description: '' } }))).onna_id,
      );
    await t.call(tok, 'DELETE', `/v1/workspaces/${made[2]}`);
    const creates = await entries(tok, '&action=workspace.create');
    expect(creates.map((e) => e.target_id)).toEqual([...made].reverse());
    expect((await entries(tok, `&target=${made[2]}`)).map((e) => e.action)).toEqual([
      'workspace.delete',
      'workspace.create',
    ]);
    const page1 = await json(await t.call(tok, 'GET', '/v1/audit?action=workspace.create&limit=2'));
    const page2 = await json(
      await t.call(tok, 'GET', `/v1/audit?action=workspace.create&limit=2&cursor=${page1.cursor}`),
    );
    const page3 = await json(
      await t.call(tok, 'GET', `/v1/audit?action=workspace.create&limit=2&cursor=${page2.cursor}`),
    );
    expect([...page1.items, ...page2.items, ...page3.items].map((e: Json) => e.target_id)).toEqual([...made].reverse());
    expect(page3.cursor).toBeNull();
    expect((await t.call(tok, 'GET', '/v1/audit?cursor=garbage')).status).toBe(400);
    const stranger = await t.token('stranger');
    expect(await entries(stranger, `&target=${made[0]}`)).toEqual([]);
  });

  it('cannot be edited or deleted through the API, and outlives the workspace it describes', async () => {
    const tok = await t.token('umbrella');
    const ws = (await json(await t.call(tok, 'POST', '/v1/workspaces', { json: { name: 'gone', description: '' } })))
      .onna_id;
    expect((await t.call(tok, 'DELETE', `/v1/workspaces/${ws}`)).status).toBe(204);
    const trail = await entries(tok, `&target=${ws}`);
    expect(trail.map((e) => e.action)).toEqual(['workspace.delete', 'workspace.create']);
    for (const method of ['DELETE', 'PATCH', 'PUT', 'POST']) {
      expect((await t.call(tok, method, '/v1/audit', { json: {} })).status).toBe(404);
      expect((await t.call(tok, method, `/v1/audit/${trail[0].id}`, { json: {} })).status).toBe(404);
    }
    expect(await entries(tok, `&target=${ws}`)).toEqual(trail);
  });

  it('lists run events the engine records with AuditRepo.record', async () => {
    const { accountId } = await t.client('runs-co');
    const tok = await t.token('runs-co');
    const db = t.runtime.ctx.db;
    await new AuditRepo(db).record({
      accountId,
      clientId: null,
      action: 'run.start',
      targetId: 'col_x',
      outcome: 'started',
      detail: { run_id: 'run_1', trigger: 'start', access_token: 'leak' },
    });
    await new AuditRepo(db).record({
      accountId,
      clientId: null,
      action: 'run.finish',
      targetId: 'col_x',
      outcome: 'succeeded',
      detail: { run_id: 'run_1' },
    });
    const log = await entries(tok, '&target=col_x');
    expect(log.map((e) => [e.action, e.outcome, e.status_code, e.client_id])).toEqual([
      ['run.finish', 'succeeded', null, null],
      ['run.start', 'started', null, null],
    ]);
    expect(log[1].detail).toEqual({ run_id: 'run_1', trigger: 'start' });
  });
});
