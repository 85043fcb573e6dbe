import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

for (const database of testDatabases) {
  describe(`POST /v1/collections/{id}/runs/{run_id}/cancel (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    const source: FakeSource = {
      units: [
        {
          custodian: { key: 'u1', email: 'u1@example.com' },
          items: [{ kind: 'file', sourceId: 'kept', custodian: 'u1', content: bytesOf('kept', 1000) }],
        },
        // Slow enough to be cancelled midway: 256 chunks, 10 ms apart.
        {
          custodian: { key: 'u2' },
          items: [{ kind: 'file', sourceId: 'slow', custodian: 'u2', content: bytesOf('slow', 256 * 1024) }],
        },
        {
          custodian: { key: 'u3' },
          items: [{ kind: 'file', sourceId: 'never', custodian: 'u3', content: bytesOf('never', 10) }],
        },
      ],
    };
    const connector = createFakeConnector({ source: () => source, chunkSize: 1024, chunkDelayMs: 10 });

    beforeAll(async () => {
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
    });
    afterAll(async () => app?.close());

    const json = async (res: Response, status: number) => {
      expect(res.status).toBe(status);
      return (await res.json()) as Json;
    };

    it('stops the run, keeps what it collected, and reconciles the units it never finished as not_reached', async () => {
      const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
      const start = await json(await app.call(token, 'POST', `/v1/collections/${collectionId}/start`), 200);
      const running = app.engine.runOnce(start.run_id);
      // Wait until the first unit's file is durable, then cancel while the second one downloads.
      for (let i = 0; i < 500; i++) {
        const items = await json(await app.call(token, 'GET', `/v1/collections/${collectionId}/items`), 200);
        if (items.items.length > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const cancelled = await json(
        await app.call(token, 'POST', `/v1/collections/${collectionId}/runs/${start.run_id}/cancel`),
        202,
      );
      expect(cancelled).toEqual({ run_id: start.run_id, status: 'cancelled' });
      expect((await running).status).toBe('cancelled');

      const items = await json(await app.call(token, 'GET', `/v1/collections/${collectionId}/items`), 200);
      expect(items.items.map((i: Json) => i.source_id)).toEqual(['kept']);
      const r = await json(
        await app.call(token, 'GET', `/v1/collections/${collectionId}/runs/${start.run_id}/reconciliation`),
        200,
      );
      expect(r.status).toBe('cancelled');
      const outcome = (c: string) =>
        (r.custodians as Json[]).find((x) => x.custodian === c)?.exceptions.map((e: Json) => e.outcome);
      expect(r.custodians.find((x: Json) => x.custodian === 'u1')).toMatchObject({ collected: 1, exceptions: [] });
      expect(outcome('u2')).toEqual(['not_reached']);
      expect(outcome('u3')).toEqual(['not_reached']);

      await json(await app.call(token, 'POST', `/v1/collections/${collectionId}/runs/${start.run_id}/cancel`), 409);
      await json(await app.call(token, 'POST', `/v1/collections/${collectionId}/runs/run_unknown/cancel`), 404);
      const events = await app.ctx.repos.events.listForCollection(collectionId, 0);
      expect(events.filter((e) => e.type === 'run.finished').map((e) => e.data)).toEqual([
        { run_id: start.run_id, collection_id: collectionId, status: 'cancelled' },
      ]);
    });
  });
}
