import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inertConnectors } from '../search/inert-connectors.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

type Json = Record<string, any>;

describe.each(testDatabases.map((d) => [d.name, d] as const))('legal holds on %s', (_name, database) => {
  let t: TestApp;
  let token: string;
  let other: string;

  const json = async (res: Response) => (await res.json()) as Json;
  async function workspace(tok = token) {
    return (await json(await t.call(tok, 'POST', '/v1/workspaces', { json: { name: 'Matter', description: '' } })))
      .onna_id as string;
  }
  async function collection(ws: string, tok = token) {
    const wallet = (
      await json(
        await t.call(tok, 'POST', '/v1/wallet', {
          json: { name: 'w', credential_type_name: 'Datasource', config_type: 'conf' },
        }),
      )
    ).onna_id;
    const res = await t.call(tok, 'POST', '/v1/collections', {
      json: { name: 'c', onna_parent_id: ws, type: 'conf', credential_id: wallet },
    });
    expect(res.status).toBe(201);
    return (await json(res)).onna_id as string;
  }
  async function hold(body: Json, tok = token) {
    const res = await t.call(tok, 'POST', '/v1/legalhold/holds', { json: body });
    return { status: res.status, body: await json(res) };
  }

  beforeAll(async () => {
    t = await startTestApp({ database, workers: false, connectors: inertConnectors });
    token = await t.token('acme');
    other = await t.token('globex');
  });
  afterAll(() => t.close());

  it('creates, lists, reads and releases a hold', async () => {
    const ws = await workspace();
    const col = await collection(ws);
    const created = await hold({ name: 'Smith v. Acme', description: 'Litigation hold', collection_ids: [col] });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['onna_id']);
    const id = created.body.onna_id as string;
    const one = await t.call(token, 'GET', `/v1/legalhold/holds/${id}`);
    expect(one.status).toBe(200);
    expect(await json(one)).toMatchObject({
      onna_id: id,
      name: 'Smith v. Acme',
      description: 'Litigation hold',
      collection_ids: [col],
      workspace_id: null,
      status: 'active',
    });
    const list = await json(await t.call(token, 'GET', '/v1/legalhold/holds'));
    expect(list.items.map((h: Json) => h.onna_id)).toContain(id);
    expect((await t.call(token, 'DELETE', `/v1/legalhold/holds/${id}`)).status).toBe(204);
    expect((await t.call(token, 'DELETE', `/v1/legalhold/holds/${id}`)).status).toBe(409);
    expect(await json(await t.call(token, 'GET', `/v1/legalhold/holds/${id}`))).toMatchObject({
      onna_id: id,
      status: 'released',
    });
    expect(
      (await json(await t.call(token, 'GET', '/v1/legalhold/holds?status=active'))).items.map((h: Json) => h.onna_id),
    ).not.toContain(id);
  });

  it('blocks deleting a held collection and its workspace with 409 naming the hold, until released', async () => {
    const ws = await workspace();
    const col = await collection(ws);
    const id = (await hold({ name: 'Board inquiry', collection_ids: [col] })).body.onna_id as string;
    for (const path of [`/v1/collections/${col}`, `/v1/workspaces/${ws}`]) {
      const res = await t.call(token, 'DELETE', path);
      expect(res.status).toBe(409);
      const body = await json(res);
      expect(body).toMatchObject({
        code: '00409_legal_hold',
        title: 'Conflict',
        id: res.headers.get('x-correlation-id'),
      });
      expect(body.detail).toContain(id);
      expect(body.detail).toContain('Board inquiry');
    }
    expect((await t.call(token, 'GET', `/v1/collections/${col}`)).status).toBe(200);
    expect((await t.call(token, 'DELETE', `/v1/legalhold/holds/${id}`)).status).toBe(204);
    expect((await t.call(token, 'DELETE', `/v1/collections/${col}`)).status).toBe(204);
    expect((await t.call(token, 'DELETE', `/v1/workspaces/${ws}`)).status).toBe(204);
  });

  it('a workspace hold covers every collection in it, also ones created later', async () => {
    const ws = await workspace();
    const before = await collection(ws);
    const id = (await hold({ name: 'Workspace hold', workspace_id: ws })).body.onna_id as string;
    const after = await collection(ws);
    for (const col of [before, after])
      expect((await t.call(token, 'DELETE', `/v1/collections/${col}`)).status).toBe(409);
    expect((await t.call(token, 'DELETE', `/v1/workspaces/${ws}`)).status).toBe(409);
    const elsewhere = await collection(await workspace());
    expect((await t.call(token, 'DELETE', `/v1/collections/${elsewhere}`)).status).toBe(204);
    await t.call(token, 'DELETE', `/v1/legalhold/holds/${id}`);
    expect((await t.call(token, 'DELETE', `/v1/workspaces/${ws}`)).status).toBe(204);
  });

  it('keeps blocking while any of several holds remains', async () => {
    const ws = await workspace();
    const col = await collection(ws);
    const a = (await hold({ name: 'A', collection_ids: [col] })).body.onna_id;
    const b = (await hold({ name: 'B', workspace_id: ws })).body.onna_id;
    await t.call(token, 'DELETE', `/v1/legalhold/holds/${a}`);
    const res = await t.call(token, 'DELETE', `/v1/collections/${col}`);
    expect(res.status).toBe(409);
    expect((await json(res)).detail).toContain(b);
    await t.call(token, 'DELETE', `/v1/legalhold/holds/${b}`);
    expect((await t.call(token, 'DELETE', `/v1/collections/${col}`)).status).toBe(204);
  });

  it('validates the body and keeps accounts apart', async () => {
    const ws = await workspace();
    const col = await collection(ws);
    expect(await hold({ name: 'empty' })).toMatchObject({
      status: 400,
      body: { source: { pointer: '/body/collection_ids' } },
    });
    expect(await hold({ name: 'x', collection_ids: [col, 'col_nope'] })).toMatchObject({
      status: 404,
      body: { source: { pointer: '/body/collection_ids/1' } },
    });
    expect(await hold({ name: 'x', workspace_id: 'ws_nope' })).toMatchObject({
      status: 404,
      body: { source: { pointer: '/body/workspace_id' } },
    });
    expect(await hold({ name: '', collection_ids: [col] })).toMatchObject({ status: 400 });
    expect(await hold({ name: 'x', collection_ids: [col], extra: 1 })).toMatchObject({ status: 400 });
    // Another account can neither hold our collection nor see, nor release, our hold.
    expect((await hold({ name: 'x', collection_ids: [col] }, other)).status).toBe(404);
    const id = (await hold({ name: 'ours', collection_ids: [col] })).body.onna_id;
    expect((await t.call(other, 'GET', `/v1/legalhold/holds/${id}`)).status).toBe(404);
    expect((await t.call(other, 'DELETE', `/v1/legalhold/holds/${id}`)).status).toBe(404);
    expect((await json(await t.call(other, 'GET', '/v1/legalhold/holds'))).items).toEqual([]);
    expect((await t.call(token, 'DELETE', `/v1/collections/${col}`)).status).toBe(409);
    expect((await t.call(null, 'GET', '/v1/legalhold/holds')).status).toBe(401);
  });

  it('is never rate limited, even after the default budget is spent', async () => {
    const tok = await t.token('acme');
    for (let sent = 0; sent < 600; sent += 50) {
      const res = await Promise.all(Array.from({ length: 50 }, () => t.call(tok, 'GET', '/v1/workspaces?limit=1')));
      expect(res.every((r) => r.status === 200)).toBe(true);
    }
    expect((await t.call(tok, 'GET', '/v1/workspaces')).status).toBe(429);
    const ws = await workspace();
    const col = await collection(ws);
    const results = await Promise.all(Array.from({ length: 30 }, () => t.call(tok, 'GET', '/v1/legalhold/holds')));
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(results[0].headers.get('ratelimit-remaining')).toBeNull();
    const created = await t.call(tok, 'POST', '/v1/legalhold/holds', {
      json: { name: 'after budget', collection_ids: [col] },
    });
    expect(created.status).toBe(201);
    const id = (await json(created)).onna_id;
    expect((await t.call(tok, 'GET', `/v1/legalhold/holds/${id}`)).status).toBe(200);
    expect((await t.call(tok, 'DELETE', `/v1/legalhold/holds/${id}`)).status).toBe(204);
  });
});
