import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, sha256, type FakeSource } from '../support/fake-connector.ts';
import { pausedPurge, startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

for (const database of testDatabases) {
  describe(`a collection being deleted is gone for everyone else (${database.name})`, () => {
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
    const seed = (typeSync: 'one' | 'auto' | 'arch' = 'one') =>
      seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer, typeSync });
    const refs = async (sha: string) =>
      (await app.ctx.db.selectFrom('blob_refs').select('refs').where('sha256', '=', sha).executeTakeFirst())?.refs ?? 0;
    const rowOf = (id: string) =>
      app.ctx.db.selectFrom('collections').select(['id', 'deleting_at']).where('id', '=', id).executeTakeFirst();

    const pausedDelete = (collectionId: string) =>
      pausedPurge(app, () => app.call(token, 'DELETE', `/v1/collections/${collectionId}`));

    it('a second DELETE of a collection being deleted answers 404 and the content another held collection shares survives', async () => {
      const shared = bytesOf('e2e-shared', 3000);
      const kept = await seed();
      await sync(kept.collectionId, { units: [{ items: [{ kind: 'file', sourceId: 'copy', content: shared }] }] });
      const hold = await app.call(token, 'POST', '/v1/legalhold/holds', {
        json: { name: 'Matter', collection_ids: [kept.collectionId] },
      });
      expect(hold.status).toBe(201);
      const doomed = await seed();
      await sync(doomed.collectionId, {
        units: [
          {
            items: [
              { kind: 'file', sourceId: 'memo', content: shared },
              { kind: 'file', sourceId: 'own', content: bytesOf('e2e-own', 10) },
            ],
          },
        ],
      });
      expect(await refs(sha256(shared))).toBe(2);

      const first = await pausedDelete(doomed.collectionId);
      expect((await rowOf(doomed.collectionId))?.deleting_at).toBeTruthy();
      expect((await app.call(token, 'DELETE', `/v1/collections/${doomed.collectionId}`)).status).toBe(404);
      expect((await app.call(token, 'GET', `/v1/collections/${doomed.collectionId}`)).status).toBe(404);
      expect((await app.call(token, 'GET', `/v1/collections/${doomed.collectionId}/items`)).status).toBe(404);
      first.release();
      expect((await first.done).status).toBe(204);

      expect(await rowOf(doomed.collectionId)).toBeUndefined();
      expect(await refs(sha256(shared))).toBe(1);
      const { items } = (await (
        await app.call(token, 'GET', `/v1/collections/${kept.collectionId}/items`)
      ).json()) as Json;
      const content = await app.call(
        token,
        'GET',
        `/v1/collections/${kept.collectionId}/items/${items[0].onna_id}/content`,
      );
      expect(content.status).toBe(200);
      expect(Buffer.from(await content.arrayBuffer()).equals(shared)).toBe(true);
    });

    it('a legal hold on a collection being deleted answers 404 and no hold is left behind', async () => {
      const doomed = await seed();
      await sync(doomed.collectionId, {
        units: [{ items: [{ kind: 'file', sourceId: 'x', content: bytesOf('e2e-hold-race', 100) }] }],
      });
      const del = await pausedDelete(doomed.collectionId);
      const hold = await app.call(token, 'POST', '/v1/legalhold/holds', {
        json: { name: 'Too late', collection_ids: [doomed.collectionId] },
      });
      expect(hold.status).toBe(404);
      expect(((await hold.json()) as Json).source).toEqual({ pointer: '/body/collection_ids/0' });
      del.release();
      expect((await del.done).status).toBe(204);
      const links = await app.ctx.db
        .selectFrom('legal_hold_collections')
        .select('hold_id')
        .where('collection_id', '=', doomed.collectionId)
        .execute();
      expect(links).toEqual([]);
    });

    it('a hold acknowledged before the deletion is marked makes it answer 409 and keeps everything', async () => {
      const s = await seed();
      await sync(s.collectionId, {
        units: [{ items: [{ kind: 'file', sourceId: 'y', content: bytesOf('e2e-held-first', 100) }] }],
      });
      // The guard outside the transaction passes; a hold lands before the marking transaction re-checks.
      const guards = app.ctx.deletionGuards;
      const original = [...guards];
      // Runs after the legal hold guard's first look (which passes), before the marking transaction's.
      guards.push(async (_req, trx) => {
        if (!trx)
          expect(
            (
              await app.call(token, 'POST', '/v1/legalhold/holds', {
                json: { name: 'Just in time', collection_ids: [s.collectionId] },
              })
            ).status,
          ).toBe(201);
      });
      try {
        expect((await app.call(token, 'DELETE', `/v1/collections/${s.collectionId}`)).status).toBe(409);
      } finally {
        guards.splice(0, guards.length, ...original);
      }
      expect((await rowOf(s.collectionId))?.deleting_at).toBeNull();
      expect((await app.call(token, 'GET', `/v1/collections/${s.collectionId}/items`)).status).toBe(200);
    });

    it('no run is queued or started for a collection being deleted, and nothing it wrote outlives the deletion', async () => {
      const s = await seed('auto');
      await sync(s.collectionId, {
        units: [{ items: [{ kind: 'file', sourceId: 'z', content: bytesOf('e2e-run-race', 100) }] }],
      });
      await app.ctx.db
        .updateTable('collections')
        .set({ next_sync_at: null })
        .where('id', '=', s.collectionId)
        .execute();
      const del = await pausedDelete(s.collectionId);
      expect((await app.call(token, 'POST', `/v1/collections/${s.collectionId}/start`)).status).toBe(404);
      await expect(app.engine.enqueue(s.collectionId, 'schedule')).rejects.toMatchObject({ status: 404 });
      await app.engine.scheduler.tick();
      expect(
        await app.ctx.db
          .selectFrom('runs')
          .select('id')
          .where('collection_id', '=', s.collectionId)
          .where('status', 'in', ['queued', 'running'])
          .execute(),
      ).toEqual([]);
      del.release();
      expect((await del.done).status).toBe(204);
      expect(
        await app.ctx.db.selectFrom('items').select('id').where('collection_id', '=', s.collectionId).execute(),
      ).toEqual([]);
      expect(
        await app.ctx.db.selectFrom('runs').select('id').where('collection_id', '=', s.collectionId).execute(),
      ).toEqual([]);
    });
  });
}
