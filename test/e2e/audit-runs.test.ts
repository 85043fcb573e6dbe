import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { createFakeConnector, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

for (const database of testDatabases) {
  describe(`run start and finish in GET /v1/audit (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    let source: FakeSource = { units: [{ items: [{ kind: 'folder', sourceId: 'd' }] }] };
    const connector = createFakeConnector({ source: () => source });

    beforeAll(async () => {
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
    });
    afterAll(async () => app?.close());

    const audit = async (query: string, tok = token) =>
      ((await (await app.call(tok, 'GET', `/v1/audit?${query}`)).json()) as Json).items as Json[];

    it('lists each run once as run.start and once as run.finish, newest first, to its own account only', async () => {
      const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
      const runIds: string[] = [];
      for (const fail of [false, true]) {
        source = fail
          ? { units: [{ items: [] }], failAfterUnit: { unit: 0, error: new Error('provider outage') } }
          : { units: [{ items: [{ kind: 'folder', sourceId: 'd' }] }] };
        const start = (await (await app.call(token, 'POST', `/v1/collections/${collectionId}/start`)).json()) as Json;
        await app.engine.runOnce(start.run_id);
        runIds.push(start.run_id);
      }
      const starts = await audit(`action=run.start&target=${collectionId}`);
      const finishes = await audit(`action=run.finish&target=${collectionId}`);
      expect(starts.map((e) => [e.outcome, e.detail?.run_id])).toEqual([
        ['started', runIds[1]],
        ['started', runIds[0]],
      ]);
      expect(finishes.map((e) => [e.outcome, e.detail?.run_id])).toEqual([
        ['failed', runIds[1]],
        ['succeeded', runIds[0]],
      ]);
      expect(finishes[0].detail.reason).toBe('provider outage');
      expect(await audit(`target=${collectionId}`, await app.token('umbrella'))).toEqual([]);
    });
  });
}
