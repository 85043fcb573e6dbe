import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, type FakeSource } from '../support/fake-connector.ts';
import { pausedPurge, startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

for (const database of testDatabases) {
  describe(`a workspace being deleted is gone for everyone else (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    const source: FakeSource = {
      units: [{ items: [{ kind: 'file', sourceId: 'memo', content: bytesOf('ws-memo', 2000) }] }],
    };
    const connector = createFakeConnector({ source: () => source });

    beforeAll(async () => {
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
    });
    afterAll(async () => app?.close());

    const seeded = async () => {
      const s = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
      const start = (await (await app.call(token, 'POST', `/v1/collections/${s.collectionId}/start`)).json()) as Json;
      expect((await app.engine.runOnce(start.run_id)).status).toBe('succeeded');
      return s;
    };

    const pausedDelete = (workspaceId: string) =>
      pausedPurge(app, () => app.call(token, 'DELETE', `/v1/workspaces/${workspaceId}`));

    it('refuses a hold on a workspace whose deletion has started (404), and leaves no hold behind', async () => {
      const s = await seeded();
      const { done, release } = await pausedDelete(s.workspaceId);
      const hold = await app.call(token, 'POST', '/v1/legalhold/holds', {
        json: { name: 'Late matter', workspace_id: s.workspaceId },
      });
      expect(hold.status).toBe(404);
      expect(((await hold.json()) as Json).source).toEqual({ pointer: '/body/workspace_id' });
      // the workspace is already gone for readers, and a second DELETE finds nothing
      expect((await app.call(token, 'GET', `/v1/workspaces/${s.workspaceId}`)).status).toBe(404);
      expect((await app.call(token, 'DELETE', `/v1/workspaces/${s.workspaceId}`)).status).toBe(404);
      release();
      expect((await done).status).toBe(204);
      const holds = (await (await app.call(token, 'GET', '/v1/legalhold/holds')).json()) as Json;
      expect(JSON.stringify(holds)).not.toContain(s.workspaceId);
      expect(
        await app.ctx.db.selectFrom('workspaces').select('id').where('id', '=', s.workspaceId).executeTakeFirst(),
      ).toBeUndefined();
    });

    it('a hold placed first still blocks the workspace deletion (409) and nothing is marked', async () => {
      const s = await seeded();
      const hold = await app.call(token, 'POST', '/v1/legalhold/holds', {
        json: { name: 'Early matter', workspace_id: s.workspaceId },
      });
      expect(hold.status).toBe(201);
      expect((await app.call(token, 'DELETE', `/v1/workspaces/${s.workspaceId}`)).status).toBe(409);
      const ws = await app.ctx.db
        .selectFrom('workspaces')
        .select('deleting_at')
        .where('id', '=', s.workspaceId)
        .executeTakeFirstOrThrow();
      expect(ws.deleting_at).toBeNull();
      expect((await app.call(token, 'GET', `/v1/collections/${s.collectionId}/items`)).status).toBe(200);
    });

    it('finishes, at the next engine start, a workspace deletion a stopped process left behind', async () => {
      const s = await seeded();
      const at = new Date().toISOString();
      await app.ctx.db.updateTable('workspaces').set({ deleting_at: at }).where('id', '=', s.workspaceId).execute();
      await app.ctx.db.updateTable('collections').set({ deleting_at: at }).where('id', '=', s.collectionId).execute();
      app.engine.startBackground();
      const deadline = Date.now() + 15_000;
      while (
        Date.now() < deadline &&
        (await app.ctx.db.selectFrom('workspaces').select('id').where('id', '=', s.workspaceId).executeTakeFirst())
      ) {
        await new Promise((r) => setTimeout(r, 50));
      }
      await app.engine.stop();
      expect(
        await app.ctx.db.selectFrom('workspaces').select('id').where('id', '=', s.workspaceId).executeTakeFirst(),
      ).toBeUndefined();
      expect(
        await app.ctx.db
          .selectFrom('items')
          .select('id')
          .where('collection_id', '=', s.collectionId)
          .executeTakeFirst(),
      ).toBeUndefined();
    });
  });
}
