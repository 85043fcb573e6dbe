import { describe, expect, it } from 'vitest';
import { type FsBlobStore } from '../../src/blobs/index.ts';
import type { Database } from '../../src/store/db.ts';
import { ItemRepo } from '../../src/store/items.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { testDatabases } from '../support/databases.ts';
import {
  bytesOf,
  createFakeConnector,
  sha256,
  type FakeConnectorOptions,
  type FakeSource,
} from '../support/fake-connector.ts';
import { engineFor, seedCollection, syncOnce, useSyncStore } from '../support/sync-fixtures.ts';
import { GrantRevokedError } from '../../src/domain/run-failures.ts';

for (const database of testDatabases) {
  describe(`sync lifecycle (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    let offsetMs = 0;
    const clock = () => new Date(Date.now() + offsetMs);
    useSyncStore(database, (s) => ({ db, blobs } = s));

    const setup = async (
      source: FakeSource,
      o: {
        typeSync?: 'one' | 'auto' | 'arch';
        held?: boolean;
        connector?: Partial<FakeConnectorOptions>;
        grant?: Record<string, unknown>;
      } = {},
    ) => {
      let current = source;
      const connector = createFakeConnector({ source: () => current, ...o.connector });
      const seeded = await seedCollection(db, { typeSync: o.typeSync, grant: o.grant as never });
      const engine = engineFor(db, blobs, [connector], {
        workers: 'none',
        isHeld: async () => o.held ?? false,
        clock,
        tuning: { retry: { baseMs: 60_000, maxMs: 600_000, maxFailures: 3 } },
      });
      return { connector, engine, ...seeded, setSource: (s: FakeSource) => (current = s) };
    };
    const collection = (id: string) =>
      db.selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const allItems = (id: string) =>
      db.selectFrom('items').selectAll().where('collection_id', '=', id).orderBy('source_id').execute();

    it('auto mirrors deletions: tombstoned, hidden, content purged unless another collection references it', async () => {
      const own = bytesOf('life-own', 2000);
      const shared = bytesOf('life-shared', 2000);
      const other = await setup({ units: [{ items: [{ kind: 'file', sourceId: 'keep', content: shared }] }] });
      await syncOnce(other.engine, other.collectionId);
      const s = await setup(
        {
          units: [
            {
              items: [
                { kind: 'file', sourceId: 'p', content: own },
                { kind: 'file', sourceId: 'q', content: shared },
                { kind: 'folder', sourceId: 'f' },
              ],
            },
          ],
        },
        { typeSync: 'auto' },
      );
      await syncOnce(s.engine, s.collectionId);
      s.setSource({
        units: [
          {
            items: [{ kind: 'folder', sourceId: 'f' }],
            deleted: [
              { kind: 'file', sourceId: 'p' },
              { kind: 'file', sourceId: 'q' },
            ],
          },
        ],
      });
      await syncOnce(s.engine, s.collectionId);

      const visible = (await new ItemRepo(db).list(s.collectionId, {}, { limit: 10 })).rows.map((r) => r.source_id);
      expect(visible).toEqual(['f']);
      const rows = await allItems(s.collectionId);
      expect(rows.find((r) => r.source_id === 'p')).toMatchObject({ content_state: 'purged', holds_ref: 0 });
      expect(rows.find((r) => r.source_id === 'p')!.tombstoned_at).not.toBeNull();
      expect(await blobs.has(sha256(own))).toBe(false);
      expect(await blobs.has(sha256(shared))).toBe(true);
      const ref = await db
        .selectFrom('blob_refs')
        .select('refs')
        .where('sha256', '=', sha256(shared))
        .executeTakeFirstOrThrow();
      expect(ref.refs).toBe(1);
    });

    it('auto keeps tombstoned content while a hold applies', async () => {
      const held = bytesOf('life-held', 1000);
      const s = await setup(
        { units: [{ items: [{ kind: 'file', sourceId: 'h', content: held }] }] },
        { typeSync: 'auto', held: true },
      );
      await syncOnce(s.engine, s.collectionId);
      s.setSource({ units: [{ items: [], deleted: [{ kind: 'file', sourceId: 'h' }] }] });
      await syncOnce(s.engine, s.collectionId);
      const [row] = await allItems(s.collectionId);
      expect(row.tombstoned_at).not.toBeNull();
      expect(row).toMatchObject({ content_state: 'stored', holds_ref: 1 });
      expect(await blobs.has(sha256(held))).toBe(true);
    });

    it('arch never removes anything: deleted items stay marked, superseded content is kept', async () => {
      const v1 = bytesOf('life-arch-v1', 1500);
      const v2 = bytesOf('life-arch-v2', 1500);
      const gone = bytesOf('life-arch-gone', 1500);
      const s = await setup(
        {
          units: [
            {
              items: [
                { kind: 'file', sourceId: 'd', content: v1, version: '1' },
                { kind: 'file', sourceId: 'e', content: gone },
              ],
            },
          ],
        },
        { typeSync: 'arch' },
      );
      await syncOnce(s.engine, s.collectionId);
      s.setSource({
        units: [
          {
            items: [{ kind: 'file', sourceId: 'd', content: v2, version: '2' }],
            deleted: [{ kind: 'file', sourceId: 'e' }],
          },
        ],
      });
      await syncOnce(s.engine, s.collectionId);

      const visible = (await new ItemRepo(db).list(s.collectionId, {}, { limit: 10 })).rows;
      expect(visible.map((r) => r.source_id).sort()).toEqual(['d', 'e']);
      const e = visible.find((r) => r.source_id === 'e')!;
      expect(e.deleted_at_source).not.toBeNull();
      expect(e).toMatchObject({ tombstoned_at: null, content_state: 'stored' });
      const d = visible.find((r) => r.source_id === 'd')!;
      expect(d.sha256).toBe(sha256(v2));
      expect(JSON.parse(d.previous_versions!)).toMatchObject([{ sha256: sha256(v1), version: '1' }]);
      for (const b of [v1, v2, gone]) expect(await blobs.has(sha256(b))).toBe(true);
    });

    it("resumes past a custodian whose end carried the checkpoint, with that custodian's unit done", async () => {
      const units = [0, 1].map((u) => ({
        custodian: { key: `owner-${u}` },
        items: [{ kind: 'meeting', sourceId: `m${u}` }],
      }));
      const s = await setup({ units, endsCarryCheckpoint: true, failAfterUnit: { unit: 1, error: new Error('boom') } });
      const { runId, outcome } = await syncOnce(s.engine, s.collectionId);
      expect(outcome.status).toBe('failed');
      const ended = await db
        .selectFrom('run_units')
        .select(['unit_key', 'status'])
        .where('run_id', '=', runId)
        .execute();
      expect(ended.find((u) => u.unit_key === 'owner-0')?.status).toBe('done');
      s.setSource({ units, endsCarryCheckpoint: true });
      const retry = await s.engine.enqueue(s.collectionId, 'retry');
      expect((await s.engine.runOnce(retry.run.id)).status).toBe('succeeded');
      expect(s.connector.calls.collects.map((c) => c.checkpoint)).toEqual([null, { unit: 1 }]);
      expect((await allItems(s.collectionId)).map((r) => r.source_id)).toEqual(['m0', 'm1']);
    });

    it("a retry resumes from the failed run's checkpoint; changed filters restart planning", async () => {
      const units = [0, 1, 2].map((u) => ({ items: [{ kind: 'meeting', sourceId: `m${u}` }] }));
      const s = await setup({ units, failAfterUnit: { unit: 1, error: new Error('HTTP 503 after retries') } });
      const first = await syncOnce(s.engine, s.collectionId);
      expect(first.outcome).toMatchObject({ status: 'failed', error: 'HTTP 503 after retries' });
      const failed = await collection(s.collectionId);
      expect(failed).toMatchObject({ sync_status: 'failed', status_reason: 'HTTP 503 after retries' });
      const wait = Date.parse(failed.next_sync_at!) - Date.now();
      expect(wait).toBeGreaterThan(50_000);
      expect(wait).toBeLessThan(70_000);

      s.setSource({ units });
      const retry = await s.engine.enqueue(s.collectionId, 'retry');
      expect(retry.run.trigger).toBe('retry');
      expect((await s.engine.runOnce(retry.run.id)).status).toBe('succeeded');
      expect(s.connector.calls.collects.map((c) => c.checkpoint)).toEqual([null, { unit: 1 }]);
      expect((await allItems(s.collectionId)).map((r) => r.source_id)).toEqual(['m0', 'm1', 'm2']);

      s.setSource({ units, failAfterUnit: { unit: 1, error: new Error('boom') } });
      await syncOnce(s.engine, s.collectionId);
      await db
        .updateTable('collections')
        .set({ sync_filters: JSON.stringify({ other: true }) })
        .where('id', '=', s.collectionId)
        .execute();
      s.setSource({ units });
      const again = await s.engine.enqueue(s.collectionId, 'retry');
      await s.engine.runOnce(again.run.id);
      expect(s.connector.calls.collects.at(-1)).toMatchObject({ checkpoint: null, filters: { other: true } });
    });

    it('hands cursors of the last completed run to the next one, unless the filters changed', async () => {
      const s = await setup({ units: [{ items: [] }], cursors: { delta: 'd1' } });
      await syncOnce(s.engine, s.collectionId);
      s.setSource({ units: [{ items: [] }], cursors: { delta: 'd2' } });
      await syncOnce(s.engine, s.collectionId);
      await db
        .updateTable('collections')
        .set({ sync_filters: JSON.stringify({ changed: 1 }) })
        .where('id', '=', s.collectionId)
        .execute();
      await syncOnce(s.engine, s.collectionId);
      expect(s.connector.calls.collects.map((c) => c.cursors)).toEqual([null, { delta: 'd1' }, null]);
    });

    it('a refused refresh token moves the collection to error with a re-pair reason', async () => {
      const s = await setup(
        { units: [{ items: [{ kind: 'meeting', sourceId: 'm' }] }] },
        {
          grant: { access_token: 'old', refresh_token: 'r', expires_at: new Date(Date.now() - 1000).toISOString() },
          connector: {
            touchApi: 'http://127.0.0.1:9/never',
            refresh: async () => Promise.reject(new GrantRevokedError('invalid_grant')),
          },
        },
      );
      const { runId, outcome } = await syncOnce(s.engine, s.collectionId);
      expect(outcome.status).toBe('error');
      const c = await collection(s.collectionId);
      expect(c.sync_status).toBe('error');
      expect(c.status_reason).toMatch(/^re-pair credentials/);
      expect(c.status_reason).not.toContain('old');
      expect(await new RunRepo(db).get(runId)).toMatchObject({ status: 'error' });
      expect(s.connector.calls.refreshes).toBe(1);
    });

    it('the scheduler re-runs auto collections after the interval and retries failed ones after the backoff', async () => {
      const auto = await setup({ units: [{ items: [] }] }, { typeSync: 'auto' });
      await syncOnce(auto.engine, auto.collectionId);
      const synced = await collection(auto.collectionId);
      expect(Date.parse(synced.next_sync_at!) - Date.now()).toBeGreaterThan(29 * 60_000);
      const flaky = await setup({ units: [{ items: [] }], failAfterUnit: { unit: 0, error: new Error('timeout') } });
      await syncOnce(flaky.engine, flaky.collectionId);

      const isQueued = async (id: string) => (await new RunRepo(db).active(id))?.trigger;
      await auto.engine.scheduler.tick();
      expect(await isQueued(auto.collectionId)).toBeUndefined();
      expect(await isQueued(flaky.collectionId)).toBeUndefined();
      offsetMs = 61_000;
      await auto.engine.scheduler.tick();
      expect(await isQueued(flaky.collectionId)).toBe('retry');
      expect(await isQueued(auto.collectionId)).toBeUndefined();
      offsetMs = 31 * 60_000;
      await auto.engine.scheduler.tick();
      expect(await isQueued(auto.collectionId)).toBe('schedule');
      expect((await collection(auto.collectionId)).sync_status).toBe('pending');
      offsetMs = 0;
      await auto.engine.cancel(auto.collectionId);
      await auto.engine.cancel(flaky.collectionId);
    });

    it('purgeCollection removes items, runs, errors, cursors and blobs no other collection references', async () => {
      const mine = bytesOf('life-purge-mine', 800);
      const shared = bytesOf('life-purge-shared', 800);
      const keeper = await setup({ units: [{ items: [{ kind: 'file', sourceId: 's', content: shared }] }] });
      await syncOnce(keeper.engine, keeper.collectionId);
      const s = await setup({
        units: [
          {
            items: [
              { kind: 'file', sourceId: 'm', content: mine },
              { kind: 'file', sourceId: 's', content: shared },
            ],
            errors: ['x'],
          },
        ],
        cursors: { c: 1 },
      });
      await syncOnce(s.engine, s.collectionId);
      await s.engine.purgeCollection(s.collectionId);
      for (const table of ['items', 'runs', 'run_errors', 'collection_cursors'] as const) {
        const n = await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('collection_id', '=', s.collectionId)
          .executeTakeFirstOrThrow();
        expect(Number(n.n), table).toBe(0);
      }
      expect(await blobs.has(sha256(mine))).toBe(false);
      expect(await blobs.has(sha256(shared))).toBe(true);
      expect((await allItems(keeper.collectionId))[0].sha256).toBe(sha256(shared));
    });

    it('cancel stops a running run, which then writes nothing more', async () => {
      const items = Array.from({ length: 40 }, (_, i) => ({
        kind: 'file',
        sourceId: `c${i}`,
        content: bytesOf(`life-cancel-${i}`, 64 * 1024),
      }));
      const s = await setup({ units: items.map((it) => ({ items: [it] })) }, { connector: { chunkDelayMs: 5 } });
      const { runId } = await s.engine.start(s.collectionId);
      const running = s.engine.runOnce(runId);
      while ((await allItems(s.collectionId)).length < 2) await new Promise((r) => setTimeout(r, 10));
      await s.engine.cancel(s.collectionId);
      expect((await running).status).toBe('cancelled');
      const count = (await allItems(s.collectionId)).length;
      expect(count).toBeLessThan(40);
      await new Promise((r) => setTimeout(r, 100));
      expect((await allItems(s.collectionId)).length).toBe(count);
      expect(await new RunRepo(db).get(runId)).toMatchObject({ status: 'cancelled' });
      expect((await collection(s.collectionId)).sync_status).toBe('error');
    });

    it('the in-process executor picks queued runs up by itself', async () => {
      const s = await setup({ units: [{ items: [{ kind: 'meeting', sourceId: 'auto-picked' }] }] });
      const engine = engineFor(db, blobs, [s.connector], { workers: 'inline' });
      engine.startBackground();
      try {
        await engine.queue(s.collectionId);
        const deadline = Date.now() + 5000;
        while ((await collection(s.collectionId)).sync_status !== 'synced' && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 20));
        expect((await collection(s.collectionId)).sync_status).toBe('synced');
        expect((await engine.latestRun(s.collectionId))?.counters.collected).toBe(1);
      } finally {
        await engine.stop();
      }
    });
  });
}
