import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, sha256, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

const own = bytesOf('release-own', 4000);
const shared = bytesOf('release-shared', 4000);

for (const database of testDatabases) {
  describe(`releasing a legal hold purges what only it kept (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    const sources = new Map<string, FakeSource>();
    let current = '';
    const connector = createFakeConnector({ source: () => sources.get(current)! });

    beforeAll(async () => {
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
    });
    afterAll(async () => app?.close());

    const sync = async (collectionId: string, source: FakeSource) => {
      sources.set(collectionId, source);
      current = collectionId;
      const start = (await (await app.call(token, 'POST', `/v1/collections/${collectionId}/start`)).json()) as Json;
      expect((await app.engine.runOnce(start.run_id)).status).toBe('succeeded');
    };
    const hold = async (body: Json) => {
      const res = await app.call(token, 'POST', '/v1/legalhold/holds', { json: body });
      expect(res.status).toBe(201);
      return ((await res.json()) as Json).onna_id as string;
    };
    const item = (collectionId: string, sourceId: string) =>
      app.ctx.db
        .selectFrom('items')
        .selectAll()
        .where('collection_id', '=', collectionId)
        .where('source_id', '=', sourceId)
        .executeTakeFirstOrThrow();
    const refs = async (sha: string) =>
      (await app.ctx.db.selectFrom('blob_refs').select('refs').where('sha256', '=', sha).executeTakeFirst())?.refs ?? 0;

    it('keeps tombstoned content while any hold covers it, and purges it when the last one is released', async () => {
      const other = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer, typeSync: 'one' });
      await sync(other.collectionId, { units: [{ items: [{ kind: 'file', sourceId: 'copy', content: shared }] }] });
      const held = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer, typeSync: 'auto' });
      const col = held.collectionId;
      await sync(col, {
        units: [
          {
            items: [
              { kind: 'file', sourceId: 'own', content: own },
              { kind: 'file', sourceId: 'shared', content: shared },
              { kind: 'file', sourceId: 'alive', content: bytesOf('release-alive', 10) },
            ],
          },
        ],
      });
      const direct = await hold({ name: 'Direct', collection_ids: [col] });
      const byWorkspace = await hold({ name: 'Workspace', workspace_id: held.workspaceId });
      await sync(col, {
        units: [
          {
            items: [{ kind: 'file', sourceId: 'alive', content: bytesOf('release-alive', 10) }],
            deleted: [
              { kind: 'file', sourceId: 'own' },
              { kind: 'file', sourceId: 'shared' },
            ],
          },
        ],
      });

      for (const id of ['own', 'shared']) {
        const row = await item(col, id);
        expect(row.tombstoned_at, id).not.toBeNull();
        expect(row).toMatchObject({ content_state: 'stored', holds_ref: 1 });
      }
      expect(await app.ctx.blobs.has(sha256(own))).toBe(true);

      expect((await app.call(token, 'DELETE', `/v1/legalhold/holds/${direct}`)).status).toBe(204);
      // The workspace hold still covers the collection.
      expect(await item(col, 'own')).toMatchObject({ content_state: 'stored', holds_ref: 1 });
      expect(await app.ctx.blobs.has(sha256(own))).toBe(true);

      expect((await app.call(token, 'DELETE', `/v1/legalhold/holds/${byWorkspace}`)).status).toBe(204);
      expect(await item(col, 'own')).toMatchObject({ content_state: 'purged', holds_ref: 0 });
      expect(await item(col, 'shared')).toMatchObject({ content_state: 'purged', holds_ref: 0 });
      expect(await app.ctx.blobs.has(sha256(own))).toBe(false);
      expect(await refs(sha256(own))).toBe(0);
      // Another collection still references the shared content: its blob stays, with that one reference.
      expect(await app.ctx.blobs.has(sha256(shared))).toBe(true);
      expect(await refs(sha256(shared))).toBe(1);
      // What the source still has is untouched, and the item API no longer serves purged content.
      expect(await item(col, 'alive')).toMatchObject({ content_state: 'stored', holds_ref: 1, tombstoned_at: null });
      const ownRow = await item(col, 'own');
      expect((await app.call(token, 'GET', `/v1/collections/${col}/items/${ownRow.id}/content`)).status).toBe(404);
    });

    it('leaves arch collections alone: they never tombstone, and released holds do not purge them', async () => {
      const arch = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer, typeSync: 'arch' });
      const kept = bytesOf('release-arch', 500);
      await sync(arch.collectionId, { units: [{ items: [{ kind: 'file', sourceId: 'k', content: kept }] }] });
      const id = await hold({ name: 'Arch', collection_ids: [arch.collectionId] });
      await sync(arch.collectionId, { units: [{ items: [], deleted: [{ kind: 'file', sourceId: 'k' }] }] });
      expect((await app.call(token, 'DELETE', `/v1/legalhold/holds/${id}`)).status).toBe(204);
      const row = await item(arch.collectionId, 'k');
      expect(row).toMatchObject({ content_state: 'stored', holds_ref: 1, tombstoned_at: null });
      expect(row.deleted_at_source).not.toBeNull();
      expect(await app.ctx.blobs.has(sha256(kept))).toBe(true);
    });
  });
}
