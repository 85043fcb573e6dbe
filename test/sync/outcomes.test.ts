import { describe, expect, it } from 'vitest';
import type { FsBlobStore } from '../../src/blobs/index.ts';
import { CollectionRepo } from '../../src/store/collections.ts';
import type { Database } from '../../src/store/db.ts';
import { EventRepo } from '../../src/store/events.ts';
import { loadReconciliation } from '../../src/read/reconciliation-report.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { progressData } from '../support/progress.ts';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, type FakeSource } from '../support/fake-connector.ts';
import { engineFor, seedCollection, syncOnce, useSyncStore } from '../support/sync-fixtures.ts';

for (const database of testDatabases) {
  describe(`run outcomes, units and events (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    useSyncStore(database, (s) => ({ db, blobs } = s));

    const setup = async (source: FakeSource) => {
      let current = source;
      const connector = createFakeConnector({ source: () => current });
      const seeded = await seedCollection(db, { typeSync: 'auto' });
      const engine = engineFor(db, blobs, [connector], { workers: 'none' });
      return { connector, engine, ...seeded, setSource: (s: FakeSource) => (current = s) };
    };
    const run = async (s: Awaited<ReturnType<typeof setup>>) => {
      const { runId, outcome } = await syncOnce(s.engine, s.collectionId);
      return {
        runId,
        outcome,
        row: (await new RunRepo(db).get(runId))!,
        collection: (await new CollectionRepo(db).getById(s.collectionId))!,
      };
    };
    const events = async (collectionId: string) =>
      (await new EventRepo(db).listForCollection(collectionId, 0)).map((e) => ({ type: e.type, data: e.data }));

    it('a clean run succeeds and tells the outbox: started, progress per custodian, finished', async () => {
      const s = await setup({
        units: [
          {
            custodian: { key: 'u1', email: 'u1@example.com' },
            items: [{ kind: 'file', sourceId: 'f1', custodian: 'u1', content: bytesOf('f1', 100) }],
            excluded: 2,
          },
          {
            custodian: { key: 'u2' },
            items: [{ kind: 'meeting', sourceId: 'm1', custodian: 'u2' }],
            notPresent: [
              { kind: 'summary', sourceId: 'm1', name: 'Weekly', reason: 'the meeting has no AI summary (404)' },
            ],
          },
        ],
      });
      const { runId, outcome, collection } = await run(s);
      expect(outcome.status).toBe('succeeded');
      expect(collection).toMatchObject({ sync_status: 'synced', status_reason: null });
      const seen = await events(s.collectionId);
      expect(seen[0]).toEqual({ type: 'run.started', data: { run_id: runId, collection_id: s.collectionId } });
      expect(seen.at(-1)).toEqual({
        type: 'run.finished',
        data: { run_id: runId, collection_id: s.collectionId, status: 'succeeded' },
      });
      const last = (custodian: string) =>
        seen
          .filter((e) => e.type === 'run.progress' && (e.data as { custodian: string }).custodian === custodian)
          .at(-1)?.data;
      // each custodian's last progress: its reconciliation entry's numbers, finished, with its e-mail
      const done = { run_id: runId, status: 'done' };
      expect(last('u1')).toEqual(
        progressData({
          ...done,
          custodian: 'u1',
          custodian_email: 'u1@example.com',
          listed: 3,
          collected: 1,
          excluded: 2,
          bytes: 100,
        }),
      );
      expect(last('u2')).toEqual(progressData({ ...done, custodian: 'u2', listed: 2, collected: 1, not_present: 1 }));

      const r = await loadReconciliation(db, { id: runId, status: 'succeeded' });
      expect(r.balanced).toBe(true);
      expect(r.totals).toEqual({ listed: 5, collected: 2, unchanged: 0, excluded: 2, not_present: 1, failed: 0 });
      expect(r.custodians.find((c) => c.custodian === 'u1')).toMatchObject({
        email: 'u1@example.com',
        listed: 3,
        excluded: 2,
        exceptions: [],
      });
      expect(r.custodians.find((c) => c.custodian === 'u2')!.exceptions).toEqual([
        {
          source_id: 'm1',
          kind: 'summary',
          name: 'Weekly',
          outcome: 'not_present',
          reason: 'the meeting has no AI summary (404)',
        },
      ]);
    });

    it('a failed piece ends the run completed_with_errors; the collection stays synced and says where to look', async () => {
      const s = await setup({
        units: [
          {
            custodian: { key: 'u1' },
            items: [
              { kind: 'file', sourceId: 'ok', custodian: 'u1', content: bytesOf('ok', 50) },
              { kind: 'file', sourceId: 'broken', custodian: 'u1', content: bytesOf('broken', 50), download: 'fails' },
              {
                kind: 'file',
                sourceId: 'vanished',
                custodian: 'u1',
                content: bytesOf('vanished', 50),
                download: 'gone',
              },
            ],
          },
          {
            custodian: { key: 'u2', failed: 'Zoom user u2@example.com was deleted: nothing collected for them' },
            items: [],
          },
        ],
      });
      const { runId, outcome, row, collection } = await run(s);
      expect(outcome.status).toBe('completed_with_errors');
      expect(row.failed).toBeGreaterThan(0);
      expect(collection.sync_status).toBe('synced');
      expect(collection.status_reason).toContain('2 items could not be collected');
      expect(collection.status_reason).toContain(`/runs/${runId}/reconciliation`);
      expect((await events(s.collectionId)).at(-1)).toEqual({
        type: 'run.finished',
        data: { run_id: runId, collection_id: s.collectionId, status: 'completed_with_errors' },
      });

      const r = await loadReconciliation(db, row);
      expect(r.balanced).toBe(true);
      expect(r.custodians.map((c) => [c.custodian, c.listed, c.collected, c.not_present, c.failed])).toEqual([
        ['u1', 3, 1, 1, 1],
        ['u2', 1, 0, 0, 1],
      ]);
      const u1 = r.custodians[0].exceptions;
      expect(u1.map((e) => [e.source_id, e.outcome]).sort()).toEqual([
        ['broken', 'failed'],
        ['vanished', 'not_present'],
      ]);
      expect(r.custodians[1].exceptions).toEqual([
        {
          source_id: 'u2',
          kind: 'custodian',
          name: 'u2',
          outcome: 'failed',
          reason: 'Zoom user u2@example.com was deleted: nothing collected for them',
        },
      ]);
    });

    it('a run in which nothing could be collected fails', async () => {
      const s = await setup({
        units: [
          {
            custodian: { key: 'u1' },
            items: [{ kind: 'file', sourceId: 'x', custodian: 'u1', content: bytesOf('x', 10), download: 'fails' }],
          },
        ],
      });
      const { outcome, collection } = await run(s);
      expect(outcome.status).toBe('failed');
      expect(collection.sync_status).toBe('failed');
    });

    it('failed pieces are retried by the following runs after the listing moved on, until they succeed', async () => {
      const broken = {
        kind: 'file',
        sourceId: 'late',
        custodian: 'u1',
        content: bytesOf('late', 30),
        download: 'fails' as const,
      };
      const s = await setup({
        units: [
          {
            custodian: { key: 'u1' },
            items: [{ kind: 'file', sourceId: 'a', custodian: 'u1', content: bytesOf('a', 30) }, broken],
          },
        ],
      });
      expect((await run(s)).outcome.status).toBe('completed_with_errors');
      // The next listing no longer reaches the piece (a moved high-water mark), and the source still fails it.
      s.setSource({
        units: [{ custodian: { key: 'u1' }, items: [{ kind: 'file', sourceId: 'b', custodian: 'u1' }] }],
        cursors: null,
      });
      const second = await run(s);
      expect(s.connector.calls.retried).toEqual(['late']);
      // Asked for it directly, the source answers it now: the retry collects it.
      expect(second.outcome.status).toBe('succeeded');
      const r = await loadReconciliation(db, second.row);
      expect(r.custodians[0]).toMatchObject({ custodian: 'u1', listed: 2, collected: 2, failed: 0 });
      const third = await run(s);
      expect(third.outcome.status).toBe('succeeded');
      expect(s.connector.calls.retried).toEqual(['late']);
    });

    it('a cancel moves the collection to error (collection.error) and lists the units never reached', async () => {
      const s = await setup({
        units: [
          { custodian: { key: 'u1' }, items: [] },
          { custodian: { key: 'u2', email: 'u2@example.com' }, items: [] },
        ],
      });
      const { runId } = await s.engine.start(s.collectionId);
      // A run that announced its units and then stopped: cancel it.
      await db
        .updateTable('runs')
        .set({
          status: 'running',
          lease_owner: 'elsewhere:-:1:a',
          lease_expires_at: new Date(Date.now() + 60_000).toISOString(),
        })
        .where('id', '=', runId)
        .execute();
      await db
        .insertInto('run_units')
        .values({
          run_id: runId,
          unit_key: 'u2',
          collection_id: s.collectionId,
          kind: 'custodian',
          email: 'u2@example.com',
          status: 'pending',
          updated_at: new Date().toISOString(),
          listed: 0,
          collected: 0,
          unchanged: 0,
          excluded: 0,
          not_present: 0,
          failed: 0,
          skipped: 0,
          bytes: 0,
        })
        .execute();
      await s.engine.cancel(s.collectionId);
      const seen = await events(s.collectionId);
      expect(seen.filter((e) => e.type === 'collection.error')).toEqual([
        {
          type: 'collection.error',
          data: { collection_id: s.collectionId, reason: 'the sync was cancelled; start it again' },
        },
      ]);
      expect(seen.filter((e) => e.type === 'run.finished')).toEqual([
        { type: 'run.finished', data: { run_id: runId, collection_id: s.collectionId, status: 'cancelled' } },
      ]);
      const r = await loadReconciliation(db, (await new RunRepo(db).get(runId))!);
      expect(r.status).toBe('cancelled');
      expect(r.custodians[0].exceptions).toEqual([
        {
          source_id: 'u2',
          kind: 'custodian',
          name: 'u2@example.com',
          outcome: 'not_reached',
          reason: 'the run was cancelled before this unit was finished',
        },
      ]);
    });
  });
}
