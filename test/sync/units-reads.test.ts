import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UnitRepo } from '../../src/store/units.ts';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

// #25: a unit's cost must not grow with the run's custodians (these count the rows a unit job reads of its run's
// reconciliation and of the collection's retry list, for a run of 2 custodians and one of 6), and what a worker
// process keeps per run (execution/unit-memo.ts) must never reach a unit of another run of the same collection.
for (const database of testDatabases) {
  describe(`what a unit job reads (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    let source: FakeSource;
    const connector = createFakeConnector({ source: () => source, chunkSize: 1024, split: true });

    beforeAll(async () => {
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
    });
    afterAll(async () => app?.close());

    const start = async (collectionId: string) => {
      const res = await app.call(token, 'POST', `/v1/collections/${collectionId}/start`);
      expect(res.status).toBe(200);
      const runId = ((await res.json()) as Json).run_id as string;
      expect(await app.engine.runOnce(runId)).toEqual({ status: 'fanned_out', error: null });
      return runId;
    };
    const units = async (runId: string, keys: string[]) => {
      const mark = connector.calls.collects.length;
      for (const k of keys) expect((await app.engine.runUnit(runId, k)).status).toBe('done');
      return connector.calls.collects.slice(mark);
    };

    const keysOf = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
    /** The most rows one call of `method` returned while the units ran. */
    const mostRowsRead = async (method: 'list' | 'retries', work: () => Promise<void>) => {
      const spy = vi.spyOn(UnitRepo.prototype, method);
      try {
        await work();
        return Math.max(0, ...(await Promise.all(spy.mock.results.map(async (r) => ((await r.value) as []).length))));
      } finally {
        spy.mockRestore();
      }
    };

    it("a failing unit's ending reads its own reconciliation entry, not every custodian's", async () => {
      const most = async (n: number) => {
        source = { units: keysOf(n).map((key) => ({ custodian: { key }, items: [], throws: new Error('down') })) };
        const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
        const runId = await start(collectionId);
        // the last unit's ending also ends the run, which reads every entry once: count the others
        return mostRowsRead('list', async () => {
          for (const k of keysOf(n).slice(0, -1)) expect((await app.engine.runUnit(runId, k)).status).toBe('failed');
        });
      };
      expect(await most(6)).toBe(await most(2));
    });

    it("a unit reads the retry list's pieces it may take, not every custodian's", async () => {
      const most = async (n: number) => {
        const failing = (key: string) => ({
          custodian: { key },
          items: [{ kind: 'file', sourceId: `ok-${key}`, custodian: key, content: bytesOf(key, 10) }],
          pieceErrors: [{ kind: 'file', sourceId: `bad-${key}`, name: 'x', reason: 'flaky', retry: { id: key } }],
        });
        source = { units: keysOf(n).map(failing) };
        const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
        const first = await start(collectionId);
        for (const k of keysOf(n)) await app.engine.runUnit(first, k);
        const second = await start(collectionId);
        // the first unit also takes pieces of units the run does not have: count the others
        return mostRowsRead('retries', async () => {
          for (const k of keysOf(n).slice(1)) await app.engine.runUnit(second, k);
        });
      };
      expect(await most(6)).toBe(await most(2));
    });

    it("gives each run's units that run's filters and the cursors the run before it left, in one process", async () => {
      source = {
        units: ['u1', 'u2'].map((key) => ({
          custodian: { key },
          items: [{ kind: 'file', sourceId: `m-${key}`, custodian: key, content: bytesOf(key, 10) }],
        })),
        cursors: 'mark-1',
      };
      const v1 = { everything: true, v: 1 };
      const v2 = { everything: true, v: 2 };
      const { collectionId } = await seedCollection(app.ctx.db, {
        account: 'acme',
        sealer: app.ctx.sealer,
        filters: v1,
      });
      const first = await start(collectionId);
      const [a] = await units(first, ['u1']);
      // a PATCH midway is for the next run
      const patch = await app.call(token, 'PATCH', `/v1/collections/${collectionId}`, { json: { sync_filters: v2 } });
      expect(patch.status).toBe(204);
      const [b] = await units(first, ['u2']);
      expect([a.filters, b.filters, a.cursors, b.cursors]).toEqual([v1, v1, null, null]);

      // the next run (new filters: the earlier cursors do not apply), then one with the same filters
      source = { ...source, cursors: 'mark-2' };
      const second = await start(collectionId);
      const inSecond = await units(second, ['u1', 'u2']);
      expect(inSecond.map((c) => [c.filters, c.cursors])).toEqual([
        [v2, null],
        [v2, null],
      ]);
      source = { ...source, cursors: 'mark-3' };
      const third = await start(collectionId);
      const inThird = await units(third, ['u2', 'u1']);
      expect(inThird.map((c) => [c.filters, c.cursors])).toEqual([
        [v2, { u1: 'mark-2', u2: 'mark-2' }],
        [v2, { u1: 'mark-2', u2: 'mark-2' }],
      ]);
      expect((await app.ctx.repos.cursors.get(collectionId))?.value).toEqual({ u1: 'mark-3', u2: 'mark-3' });
    });
  });
}
