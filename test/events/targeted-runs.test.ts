import { describe, expect, it } from 'vitest';
import type { CollectContext, Connector } from '../../src/connectors/types.ts';
import type { Database } from '../../src/store/db.ts';
import { EventTargetRepo } from '../../src/store/provider-events.ts';
import type { FsBlobStore } from '../../src/blobs/fs.ts';
import { createEventDispatcher } from '../../src/sync/events/provider-events.ts';
import { createFakeConnector, type FakeUnit } from '../support/fake-connector.ts';
import { testDatabases } from '../support/databases.ts';
import { engineFor, seedCollection, silentLog, syncOnce, testSealer, useSyncStore } from '../support/sync-fixtures.ts';

const MINUTE = 60_000;

/** A source of three custodians; a run sees only the custodians its scope names (all when it has none). */
function scopedSource() {
  const scopes: Array<string[] | null> = [];
  const units: FakeUnit[] = ['alice', 'bob', 'carol'].map((key) => ({
    custodian: { key },
    items: [{ kind: 'file', sourceId: `${key}-1`, custodian: key, content: Buffer.from(key) }],
  }));
  let current: string[] | null = null;
  const inner = createFakeConnector({
    source: () => ({ units: units.filter((u) => current === null || current.includes(u.custodian!.key)) }),
  });
  const connector: Connector = {
    ...inner,
    collect(ctx: CollectContext) {
      current = ctx.scope ?? null;
      scopes.push(current);
      return inner.collect(ctx);
    },
  };
  return { connector, units, scopes };
}

describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'targeted event runs and the scheduled safety net on %s',
  (_name, database) => {
    let db: Database;
    let blobs: FsBlobStore;
    useSyncStore(database, (s) => ({ db, blobs } = s));

    it('runs an event limited to its custodians, coalesces marks, leaves the schedule alone, and the schedule catches what events missed', async () => {
      let now = Date.parse('2026-03-01T10:00:00Z');
      const clock = () => new Date(now);
      const source = scopedSource();
      const engine = engineFor(db, blobs, [source.connector], { clock, intervalMinutes: 30 });
      const { collectionId } = await seedCollection(db, { typeSync: 'auto' });
      const runAll = async () => {
        for (const id of await engine.claimableRunIds(10)) await engine.runOnce(id);
      };
      await syncOnce(engine, collectionId);
      const planned = (
        await db
          .selectFrom('collections')
          .select('next_sync_at')
          .where('id', '=', collectionId)
          .executeTakeFirstOrThrow()
      ).next_sync_at;
      expect(planned).toBe(new Date(now + 30 * MINUTE).toISOString());

      const dispatcher = createEventDispatcher({
        db,
        connectors: { get: () => undefined, types: () => [] },
        sealer: testSealer,
        log: silentLog,
        clock,
        coalesceMs: 3000,
        work: { queue: (id, custodians) => engine.queueTargeted(id, custodians) },
      });
      const targets = new EventTargetRepo(db);
      // two events for two custodians inside the coalescing window
      now += MINUTE;
      await targets.mark(collectionId, 'bob', clock().toISOString());
      now += 1000;
      await targets.mark(collectionId, 'alice', clock().toISOString());
      await targets.mark(collectionId, 'alice', clock().toISOString());
      expect(await dispatcher.flush()).toBe(0);
      now += 2500; // bob's mark is ripe; alice's arrived within the window and rides along
      expect(await dispatcher.flush()).toBe(1);
      expect(await targets.all()).toEqual([]);
      // another event while that run is still queued widens it instead of queueing another
      expect(await engine.queueTargeted(collectionId, ['carol'])).toBe('queued');
      const queued = await db.selectFrom('runs').selectAll().where('status', '=', 'queued').execute();
      expect(queued).toHaveLength(1);
      expect(queued[0].trigger).toBe('event');
      expect(JSON.parse(queued[0].scope!)).toEqual(['alice', 'bob', 'carol']);
      await runAll();
      expect(source.scopes.at(-1)).toEqual(['alice', 'bob', 'carol']);

      // one custodian only: the run sees nobody else, and the scheduled full run keeps its time
      now += MINUTE;
      source.units[2].items[0].content = Buffer.from('carol, changed without any event');
      source.units[2].items[0].version = 'v2';
      expect(await engine.queueTargeted(collectionId, ['alice'])).toBe('queued');
      await runAll();
      expect(source.scopes.at(-1)).toEqual(['alice']);
      const runs = await db
        .selectFrom('runs')
        .selectAll()
        .where('collection_id', '=', collectionId)
        .orderBy('created_at')
        .execute();
      expect(runs.map((r) => [r.trigger, r.status])).toEqual([
        ['start', 'succeeded'],
        ['event', 'succeeded'],
        ['event', 'succeeded'],
      ]);
      const after = await db
        .selectFrom('collections')
        .select(['next_sync_at', 'sync_status'])
        .where('id', '=', collectionId)
        .executeTakeFirstOrThrow();
      expect(after).toEqual({ next_sync_at: planned, sync_status: 'synced' });
      const carol = async () =>
        (await db.selectFrom('items').select('version').where('source_id', '=', 'carol-1').executeTakeFirstOrThrow())
          .version;
      expect(await carol()).toBe('v1');

      // the safety net: at the planned time the scheduler queues a full run, which sees the change no event announced
      now = Date.parse(planned!) - 1000;
      expect(await engine.scheduler.tick()).toBe(0);
      now += 2000;
      expect(await engine.scheduler.tick()).toBe(1);
      await runAll();
      expect(source.scopes.at(-1)).toBeNull();
      expect(await carol()).toBe('v2');
      const last = await db
        .selectFrom('runs')
        .selectAll()
        .where('collection_id', '=', collectionId)
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      expect([last.trigger, last.scope]).toEqual(['schedule', null]);
      await engine.stop();
    });

    it('drops events for collections that do not re-sync on their own, and waits while a full run is active', async () => {
      const source = scopedSource();
      const engine = engineFor(db, blobs, [source.connector]);
      const once = await seedCollection(db, { typeSync: 'one', account: 'one-shot' });
      await syncOnce(engine, once.collectionId);
      expect(await engine.queueTargeted(once.collectionId, ['alice'])).toBe('dropped');

      const auto = await seedCollection(db, { typeSync: 'auto', account: 'busy' });
      await engine.start(auto.collectionId);
      expect(await engine.queueTargeted(auto.collectionId, ['alice'])).toBe('busy');
      await engine.stop();
    });
  },
);
