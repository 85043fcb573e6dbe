import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type FsBlobStore } from '../../../src/blobs/index.ts';
import type { Database } from '../../../src/store/db.ts';
import { newId } from '../../../src/store/ids.ts';
import { STUCK_REASON } from '../../../src/sync/schedule/repair-stuck.ts';
import { testDatabases } from '../../support/databases.ts';
import { createFakeConnector } from '../../support/fake-connector.ts';
import { engineFor, seedCollection, syncOnce, useSyncStore } from '../../support/sync-fixtures.ts';

for (const database of testDatabases) {
  describe(`collections left without their run are repaired (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    let offsetMs = 0;
    const clock = () => new Date(Date.now() + offsetMs);
    useSyncStore(database, (s) => ({ db, blobs } = s));

    const setup = async () => {
      const connector = createFakeConnector({
        source: () => ({ units: [{ items: [{ kind: 'meeting', sourceId: 'm1' }] }] }),
      });
      const seeded = await seedCollection(db, { typeSync: 'auto' });
      const engine = engineFor(db, blobs, [connector], {
        workers: 'none',
        clock,
        tuning: { retry: { baseMs: 60_000, maxMs: 600_000, maxFailures: 3 } },
      });
      return { engine, ...seeded };
    };
    const collection = (id: string) =>
      db.selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const activeRuns = (id: string) =>
      db
        .selectFrom('runs')
        .selectAll()
        .where('collection_id', '=', id)
        .where('status', 'in', ['queued', 'running'])
        .execute();

    /** What a SIGKILL between "run finished" and "collection synced" left, before both were one transaction. */
    const leaveStuckSyncing = async (collectionId: string, accountId: string) => {
      const at = clock().toISOString();
      await db
        .insertInto('runs')
        .values({
          id: newId('run'),
          collection_id: collectionId,
          account_id: accountId,
          trigger: 'start',
          status: 'succeeded',
          created_at: at,
          started_at: at,
          finished_at: at,
          heartbeat_at: null,
          lease_owner: null,
          lease_expires_at: null,
          checkpoint: null,
          filters_fingerprint: null,
          pending_cursors: null,
          error: null,
          listing_run_id: null,
        })
        .execute();
      await db
        .updateTable('collections')
        .set({ sync_status: 'syncing', next_sync_at: null })
        .where('id', '=', collectionId)
        .execute();
    };

    it('`syncing` with no active run becomes `failed` with a reason, then is retried at the backoff time', async () => {
      offsetMs = 0;
      const { engine, collectionId, accountId } = await setup();
      await leaveStuckSyncing(collectionId, accountId);
      expect(await engine.scheduler.tick()).toBe(0);
      const repaired = await collection(collectionId);
      expect(repaired).toMatchObject({ sync_status: 'failed', status_reason: STUCK_REASON });
      const wait = Date.parse(repaired.next_sync_at!) - clock().getTime();
      expect(wait).toBeGreaterThan(50_000);
      expect(wait).toBeLessThanOrEqual(60_000);
      expect(await activeRuns(collectionId)).toEqual([]);

      offsetMs = 61_000;
      expect(await engine.scheduler.tick()).toBe(1);
      const [retry] = await activeRuns(collectionId);
      expect(retry).toMatchObject({ trigger: 'retry', status: 'queued', checkpoint: null });
      expect((await collection(collectionId)).sync_status).toBe('pending');
      expect((await engine.runOnce(retry.id)).status).toBe('succeeded');
      expect((await collection(collectionId)).sync_status).toBe('synced');
    });

    it('`pending` with no active run gets its run queued', async () => {
      offsetMs = 0;
      const { engine, collectionId } = await setup();
      await db.updateTable('collections').set({ sync_status: 'pending' }).where('id', '=', collectionId).execute();
      await engine.scheduler.tick();
      const runs = await activeRuns(collectionId);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'queued' });
      // Once repaired there is nothing more to do: a second tick queues nothing new.
      await engine.scheduler.tick();
      expect((await activeRuns(collectionId)).map((r) => r.id)).toEqual([runs[0].id]);
      expect((await engine.runOnce(runs[0].id)).status).toBe('succeeded');
      expect((await collection(collectionId)).sync_status).toBe('synced');
    });

    it('leaves collections whose run is active alone, and gives up after too many failures in a row', async () => {
      offsetMs = 0;
      const { engine, collectionId, accountId } = await setup();
      const { runId } = await engine.start(collectionId);
      await engine.scheduler.tick();
      expect(await collection(collectionId)).toMatchObject({ sync_status: 'syncing' });
      expect((await activeRuns(collectionId)).map((r) => r.id)).toEqual([runId]);
      await db
        .updateTable('runs')
        .set({ status: 'failed', finished_at: clock().toISOString() })
        .where('id', '=', runId)
        .execute();
      for (let i = 0; i < 2; i++) {
        const at = clock().toISOString();
        await db
          .insertInto('runs')
          .values({
            id: newId('run'),
            collection_id: collectionId,
            account_id: accountId,
            trigger: 'retry',
            status: 'failed',
            created_at: at,
            started_at: at,
            finished_at: at,
            heartbeat_at: null,
            lease_owner: null,
            lease_expires_at: null,
            checkpoint: null,
            filters_fingerprint: null,
            pending_cursors: null,
            error: 'x',
            listing_run_id: null,
          })
          .execute();
      }
      await engine.scheduler.tick();
      const c = await collection(collectionId);
      expect(c).toMatchObject({ sync_status: 'error', next_sync_at: null });
      expect(c.status_reason).toMatch(/^gave up after 4 failed runs in a row: /);
    });

    it('changes the status only together with the run it promises (queue, start and cancel are atomic)', async () => {
      offsetMs = 0;
      const { engine, collectionId } = await setup();
      const postgres = database.name !== 'sqlite';
      // A failing run insert stands in for a crash between the two writes.
      const trigger = `refuse_${collectionId.replace(/[^a-z0-9]/gi, '')}`;
      if (postgres) {
        await sql
          .raw(
            `create function ${trigger}() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`,
          )
          .execute(db);
        await sql
          .raw(
            `create trigger ${trigger} before insert on runs for each row when (new.collection_id = '${collectionId}') execute function ${trigger}()`,
          )
          .execute(db);
      } else {
        await sql
          .raw(
            `create trigger ${trigger} before insert on runs when new.collection_id = '${collectionId}' begin select raise(abort, 'refused'); end`,
          )
          .execute(db);
      }
      await expect(engine.enqueue(collectionId, 'start')).rejects.toThrow(/refused/);
      expect((await collection(collectionId)).sync_status).toBe('created');
      await db.updateTable('collections').set({ sync_status: 'synced' }).where('id', '=', collectionId).execute();
      await expect(engine.enqueue(collectionId, 'schedule')).rejects.toThrow(/refused/);
      await expect(engine.start(collectionId)).rejects.toThrow(/refused/);
      expect((await collection(collectionId)).sync_status).toBe('synced');
      await sql.raw(`drop trigger ${trigger}${postgres ? ' on runs' : ''}`).execute(db);

      const { runId } = await engine.start(collectionId);
      expect(await collection(collectionId)).toMatchObject({ sync_status: 'syncing' });
      await engine.cancel(collectionId);
      expect(await collection(collectionId)).toMatchObject({ sync_status: 'error' });
      expect(await db.selectFrom('runs').select('status').where('id', '=', runId).executeTakeFirst()).toEqual({
        status: 'cancelled',
      });
      expect(await syncOnce(engine, collectionId)).toMatchObject({ outcome: { status: 'succeeded' } });
    });
  });
}
