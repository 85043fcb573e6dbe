import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, sha256, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

const before = bytesOf('hold-version-before', 6000);
const after = bytesOf('hold-version-after', 6000);

for (const database of testDatabases) {
  describe(`a legal hold keeps superseded versions of an auto collection (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    let source: FakeSource;
    const connector = createFakeConnector({ source: () => source });

    beforeAll(async () => {
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
    });
    afterAll(async () => app?.close());

    const sync = async (collectionId: string) => {
      const start = (await (await app.call(token, 'POST', `/v1/collections/${collectionId}/start`)).json()) as Json;
      expect((await app.engine.runOnce(start.run_id)).status).toBe('succeeded');
      return start.run_id as string;
    };
    const get = async (p: string) => app.call(token, 'GET', p);

    it('serves the pre-hold content of a modified file and an edited message while held, and drops the bytes (not the record) on release', async () => {
      const { collectionId } = await seedCollection(app.ctx.db, {
        account: 'acme',
        sealer: app.ctx.sealer,
        typeSync: 'auto',
      });
      source = {
        units: [
          {
            items: [
              { kind: 'file', sourceId: 'f', name: 'memo.txt', content: before, version: '1' },
              { kind: 'chat_message', sourceId: 'm', text: 'the deal is off', version: 'a' },
            ],
          },
        ],
      };
      const first = await sync(collectionId);
      const created = await app.call(token, 'POST', '/v1/legalhold/holds', {
        json: { name: 'Matter 7', collection_ids: [collectionId] },
      });
      expect(created.status).toBe(201);
      const holdId = ((await created.json()) as Json).onna_id as string;
      source = {
        units: [
          {
            items: [
              { kind: 'file', sourceId: 'f', name: 'memo.txt', content: after, version: '2' },
              { kind: 'chat_message', sourceId: 'm', text: 'the deal is on', version: 'b' },
            ],
          },
        ],
      };
      const second = await sync(collectionId);

      const { items } = (await (await get(`/v1/collections/${collectionId}/items`)).json()) as { items: Json[] };
      const file = items.find((i) => i.source_id === 'f')!;
      const message = items.find((i) => i.source_id === 'm')!;
      expect(file.sha256).toBe(sha256(after));
      const versions = `/v1/collections/${collectionId}/items/${file.onna_id}/versions`;
      expect(((await (await get(versions)).json()) as Json).versions).toEqual([
        expect.objectContaining({
          version_number: 1,
          sha256: sha256(before),
          run_id: first,
          superseded_by_run_id: second,
          content_available: true,
        }),
      ]);
      const old = await get(`${versions}/1/content`);
      expect(old.status).toBe(200);
      expect(Buffer.from(await old.arrayBuffer()).equals(before)).toBe(true);
      const edits = (await (
        await get(`/v1/collections/${collectionId}/items/${message.onna_id}/versions`)
      ).json()) as Json;
      expect(edits.versions).toEqual([expect.objectContaining({ text: 'the deal is off', run_id: first })]);

      expect((await app.call(token, 'DELETE', `/v1/legalhold/holds/${holdId}`)).status).toBe(204);
      expect(((await (await get(versions)).json()) as Json).versions).toEqual([
        expect.objectContaining({ version_number: 1, sha256: sha256(before), run_id: first, content_available: false }),
      ]);
      expect((await get(`${versions}/1/content`)).status).toBe(404);
      expect(await app.ctx.blobs.has(sha256(before))).toBe(false);
      expect(await app.ctx.blobs.has(sha256(after))).toBe(true);
      // The text of a message is not content: its record stays whole.
      expect(
        ((await (await get(`/v1/collections/${collectionId}/items/${message.onna_id}/versions`)).json()) as Json)
          .versions,
      ).toEqual([expect.objectContaining({ text: 'the deal is off' })]);
    });
  });
}
