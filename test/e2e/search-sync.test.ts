import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectEvent } from '../../src/connectors/types.ts';
import { inertConnectors, memoryContent, scriptedConf } from '../search/inert-connectors.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

type Json = Record<string, any>;

const VTT = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:03.000\nDana: the warehouse lease expires in June\n';

const firstRun: CollectEvent[] = [
  {
    type: 'item',
    item: {
      kind: 'meeting',
      sourceId: 'm1',
      name: 'Facilities review',
      path: '/meetings/m1',
      custodian: 'dana@example.com',
      metadata: { topic: 'Lease renewal' },
    },
  },
  {
    type: 'item',
    item: {
      kind: 'transcript',
      sourceId: 't1',
      name: 'Facilities review.vtt',
      path: '/meetings/m1/t1',
      custodian: 'dana@example.com',
      mimeType: 'text/vtt',
      metadata: {},
    },
    content: memoryContent(VTT),
  },
  {
    type: 'item',
    item: {
      kind: 'chat_message',
      sourceId: 'c1',
      name: 'Chat',
      path: '/chats/c1',
      custodian: 'dana@example.com',
      text: 'ping me about the forklift',
      metadata: {},
    },
  },
];
const deletedAtSource: CollectEvent[] = [{ type: 'deleted', kind: 'transcript', sourceId: 't1' }];

/** Items collected by a real sync run are searchable as they land; holds keep what an auto sync tombstones. */
describe.each(testDatabases.map((d) => [d.name, d] as const))('search over synced items on %s', (_name, database) => {
  let t: TestApp;
  let token: string;
  const script = { runs: [firstRun, deletedAtSource], count: 0 };

  const json = async (res: Response) => (await res.json()) as Json;
  const found = async (query: string, extra: Json = {}) =>
    ((await json(await t.call(token, 'POST', '/v1/search', { json: { query, ...extra } }))).results as Json[]).map(
      (r) => r.item.name as string,
    );

  async function syncOnce(col: string) {
    const runsBefore = script.count;
    expect((await t.call(token, 'POST', `/v1/collections/${col}/start`)).status).toBe(200);
    for (let i = 0; i < 200; i++) {
      const c = await json(await t.call(token, 'GET', `/v1/collections/${col}`));
      if (script.count > runsBefore && c.latest_run?.finished_datetime) return c;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the run did not finish');
  }

  async function autoCollection(): Promise<{ ws: string; col: string }> {
    const post = async (path: string, body: Json) =>
      (await json(await t.call(token, 'POST', path, { json: body }))).onna_id as string;
    const ws = await post('/v1/workspaces', { name: 'Facilities', description: '' });
    const wallet = await post('/v1/wallet', { name: 'z', credential_type_name: 'Datasource', config_type: 'conf' });
    const col = await post('/v1/collections', {
      name: 'zoom',
      onna_parent_id: ws,
      type: 'conf',
      credential_id: wallet,
    });
    await t.runtime.ctx.repos.wallets.setGrant(
      wallet,
      t.runtime.ctx.sealer.seal({ access_token: 'a', refresh_token: 'r', expires_at: '2999-01-01T00:00:00Z' }),
    );
    expect(
      (await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: {}, type_sync: 'auto' } }))
        .status,
    ).toBe(204);
    return { ws, col };
  }

  beforeAll(async () => {
    t = await startTestApp({ database, connectors: () => [scriptedConf(script), inertConnectors()[1]] });
    token = await t.token('acme');
  });
  afterAll(() => t.close());

  it('finds what a run collected, keeps held content after an auto tombstone, and forgets a deleted collection', async () => {
    const { ws, col } = await autoCollection();
    script.count = 0;
    expect((await syncOnce(col)).sync_status).toBe('synced');
    expect(await found('"warehouse lease"')).toEqual(['Facilities review.vtt']);
    expect(await found('forklift')).toEqual(['Chat']);
    expect(await found('renewal')).toEqual(['Facilities review']);

    const hold = (
      await json(
        await t.call(token, 'POST', '/v1/legalhold/holds', { json: { name: 'Lease dispute', workspace_id: ws } }),
      )
    ).onna_id;
    await syncOnce(col);
    // Tombstoned: hidden by default, but its content text is kept under the hold.
    expect(await found('warehouse')).toEqual([]);
    expect(await found('warehouse', { include_deleted: true })).toEqual(['Facilities review.vtt']);
    const row = await t.runtime.ctx.db
      .selectFrom('items')
      .select(['content_state', 'tombstoned_at'])
      .where('collection_id', '=', col)
      .where('kind', '=', 'transcript')
      .executeTakeFirstOrThrow();
    expect(row.content_state).toBe('stored');
    expect(row.tombstoned_at).not.toBeNull();

    expect((await t.call(token, 'DELETE', `/v1/collections/${col}`)).status).toBe(409);
    expect((await t.call(token, 'DELETE', `/v1/legalhold/holds/${hold}`)).status).toBe(204);
    expect((await t.call(token, 'DELETE', `/v1/collections/${col}`)).status).toBe(204);
    expect(await found('forklift OR renewal OR warehouse', { include_deleted: true })).toEqual([]);
  });

  it('purges the content text of an item an auto sync tombstones without a hold', async () => {
    const { col } = await autoCollection();
    script.count = 0;
    await syncOnce(col);
    await syncOnce(col);
    const row = await t.runtime.ctx.db
      .selectFrom('items')
      .select(['content_state'])
      .where('collection_id', '=', col)
      .where('kind', '=', 'transcript')
      .executeTakeFirstOrThrow();
    expect(row.content_state).toBe('purged');
    expect(await found('warehouse', { include_deleted: true, collection_ids: [col] })).toEqual([]);
    expect(await found('name:facilities kind:transcript', { include_deleted: true, collection_ids: [col] })).toEqual([
      'Facilities review.vtt',
    ]);
  });
});
