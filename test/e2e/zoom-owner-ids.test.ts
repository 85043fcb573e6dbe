import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grant } from '../../src/connectors/types.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { filters, pair, sel, testConnector } from '../connectors/zoom-harness.ts';
import { testDatabases } from '../support/databases.ts';
import { runToEnd, startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

/** `conf` owner ids are checked against the paired Zoom account, as `edrive` user ids are against the tenant. */
for (const database of testDatabases) {
  describe(`conf owner ids (${database.name})`, () => {
    let sandbox: ZoomSandbox;
    let app: ItemsApp;
    let token: string;
    let grant: Grant;

    beforeAll(async () => {
      sandbox = await startZoomSandbox({ seed: 41, users: 3, meetingsPerUser: 1, channels: 0 });
      const connector = testConnector(sandbox);
      grant = await pair(connector);
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
    });
    afterAll(async () => {
      await app?.close();
      await sandbox?.close();
    });

    const collection = async (f: unknown) =>
      (await seedCollection(app.ctx.db, { type: 'conf', account: 'acme', sealer: app.ctx.sealer, grant, filters: f }))
        .collectionId;
    const known = () => sandbox.tenant.users[0].id;

    it("PATCH answers 422 with the entry's JSON pointer, naming an id the account does not have; known ids are saved", async () => {
      const id = await collection(filters({ account_owners: sel({ selected: [known()] }) }));
      const res = await app.call(token, 'PATCH', `/v1/collections/${id}`, {
        json: { sync_filters: filters({ account_owners: sel({ selected: [known(), 'nobody'] }) }) },
      });
      expect(res.status).toBe(422);
      const text = await res.text();
      expect(text).toContain('/body/sync_filters/account_owners/selected/1/id');
      expect(JSON.parse(text).detail).toMatch(/"nobody" is not found in the paired Zoom account/);
      const excluded = await app.call(token, 'PATCH', `/v1/collections/${id}`, {
        json: { sync_filters: filters({ account_owners: sel({ all: true, excluded: ['ghost'] }) }) },
      });
      expect(excluded.status).toBe(422);
      expect(await excluded.text()).toContain('/body/sync_filters/account_owners/excluded/0/id');
      const ok = await app.call(token, 'PATCH', `/v1/collections/${id}`, {
        json: { sync_filters: filters({ account_owners: sel({ selected: [known()] }) }) },
      });
      expect(ok.status).toBe(204);
    });

    it('an id saved when the account could not be asked: the run collects the others, reports it as a failed custodian "not found", and ends in `error` (not retried)', async () => {
      const id = await collection(filters({ account_owners: sel({ selected: [known(), 'nobody'] }) }));
      const start = await app.call(token, 'POST', `/v1/collections/${id}/start`);
      expect(start.status).toBe(200);
      const runId = ((await start.json()) as Json).run_id as string;
      expect(await runToEnd(app, runId)).toBe('error');
      const c = (await (await app.call(token, 'GET', `/v1/collections/${id}`)).json()) as Json;
      expect(c.sync_status).toBe('error');
      expect(c.status_reason).toMatch(/nobody.*not found in the Zoom account/);
      const row = await app.ctx.db
        .selectFrom('collections')
        .select('next_sync_at')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.next_sync_at).toBeNull();
      const r = (await (
        await app.call(token, 'GET', `/v1/collections/${id}/runs/${runId}/reconciliation`)
      ).json()) as Json;
      const nobody = r.custodians.find((u: Json) => u.custodian === 'nobody');
      expect(nobody.exceptions.map((e: Json) => e.outcome)).toContain('failed');
      expect(JSON.stringify(nobody.exceptions)).toMatch(/not found in the Zoom account/);
      expect(JSON.stringify(nobody.exceptions)).not.toMatch(/deleted/);
      const mine = r.custodians.find((u: Json) => u.custodian === known());
      expect(mine.collected).toBeGreaterThan(0);
    });
  });
}
