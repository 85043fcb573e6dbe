import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { createFakeConnector, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

for (const database of testDatabases) {
  describe(`the engine keeps the search index in step with items (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    let collectionId: string;
    let source: FakeSource;

    beforeAll(async () => {
      app = await startItemsApp(database, [createFakeConnector({ source: () => source })]);
      token = await app.token('acme');
      ({ collectionId } = await seedCollection(app.ctx.db, {
        account: 'acme',
        sealer: app.ctx.sealer,
        typeSync: 'auto',
      }));
    });
    afterAll(async () => app?.close());

    const sync = async () => {
      const { run_id } = (await (await app.call(token, 'POST', `/v1/collections/${collectionId}/start`)).json()) as {
        run_id: string;
      };
      expect((await app.engine.runOnce(run_id)).status).toBe('succeeded');
    };
    const search = async (query: string, extra: Record<string, unknown> = {}) => {
      const res = await app.call(token, 'POST', '/v1/search', {
        json: { query, collection_ids: [collectionId], ...extra },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { results: { item: { source_id: string } }[] }).results.map(
        (r) => r.item.source_id,
      );
    };

    it('indexes item text and extracted content text, and drops purged content and deleted collections', async () => {
      source = {
        units: [
          {
            items: [
              { kind: 'chat_message', sourceId: 'c1', name: 'chat', text: 'the quarterly zebra budget' },
              {
                kind: 'file',
                sourceId: 'notes',
                name: 'notes.txt',
                content: Buffer.from('a giraffe walked into the meeting'),
              },
            ],
          },
        ],
      };
      await sync();
      expect(await search('zebra')).toEqual(['c1']);
      expect(await search('giraffe')).toEqual(['notes']);

      source = {
        units: [
          {
            items: [{ kind: 'chat_message', sourceId: 'c1', name: 'chat', text: 'the quarterly zebra budget' }],
            deleted: [{ kind: 'file', sourceId: 'notes' }],
          },
        ],
      };
      await sync();
      expect(await search('giraffe')).toEqual([]);
      expect(await search('notes', { include_deleted: true })).toEqual(['notes']);
      expect(await search('giraffe', { include_deleted: true })).toEqual([]);

      await app.engine.purgeCollection(collectionId);
      expect(await search('zebra')).toEqual([]);
    });
  });
}
