import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grant } from '../../src/connectors/types.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { ALL_CHATS, filters, pair, sel, testConnector } from '../connectors/zoom-harness.ts';
import { testDatabases } from '../support/databases.ts';
import { runToEnd, startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

/** A missing Zoom scope is something a person must fix: 409 / `error` naming the scope, never a retry loop. */
for (const database of testDatabases) {
  describe(`a missing provider scope (${database.name})`, () => {
    let sandbox: ZoomSandbox;
    let app: ItemsApp;
    let token: string;
    let grant: Grant;

    beforeAll(async () => {
      sandbox = await startZoomSandbox({ seed: 5, users: 2, meetingsPerUser: 1, channels: 1 });
      const connector = testConnector(sandbox);
      grant = await pair(connector);
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
    });
    afterAll(async () => {
      await app?.close();
      await sandbox?.close();
    });

    const collection = async () =>
      (
        await seedCollection(app.ctx.db, {
          type: 'conf',
          account: 'acme',
          sealer: app.ctx.sealer,
          grant,
          filters: filters({ account_owners: sel({ all: true }), chats: ALL_CHATS }),
        })
      ).collectionId;
    const secrets = () => [grant.access_token!, grant.refresh_token!];

    it('discovery answers 409 naming the scope the app lacks, without a token', async () => {
      const id = await collection();
      sandbox.faults.missingScopes = ['user:read:list_users:admin'];
      try {
        const res = await app.call(token, 'GET', `/v1/collections/${id}/users`);
        expect(res.status).toBe(409);
        const text = await res.text();
        expect(JSON.parse(text)).toMatchObject({ code: '00409_conflict' });
        expect(JSON.parse(text).detail).toMatch(/user:read:list_users:admin/);
        expect(JSON.parse(text).detail).toMatch(/pair the collection again/);
        for (const secret of secrets()) expect(text).not.toContain(secret);
      } finally {
        sandbox.faults.missingScopes = [];
      }
    });

    it('a run stops in `error` with the scope as status_reason and is not retried', async () => {
      const id = await collection();
      sandbox.faults.missingScopes = ['team_chat:read:list_user_messages:admin'];
      try {
        const start = (await (await app.call(token, 'POST', `/v1/collections/${id}/start`)).json()) as Json;
        expect(await runToEnd(app, start.run_id)).toBe('error');
        const c = (await (await app.call(token, 'GET', `/v1/collections/${id}`)).json()) as Json;
        expect(c.sync_status).toBe('error');
        expect(c.status_reason).toMatch(/team_chat:read:list_user_messages:admin/);
        const row = await app.ctx.db
          .selectFrom('collections')
          .select('next_sync_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        expect(row.next_sync_at).toBeNull();
        for (const secret of secrets()) expect(JSON.stringify(c)).not.toContain(secret);
      } finally {
        sandbox.faults.missingScopes = [];
      }
    });
  });
}
