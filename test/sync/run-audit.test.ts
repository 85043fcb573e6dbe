import { describe, expect, it } from 'vitest';
import { type FsBlobStore } from '../../src/blobs/index.ts';
import type { CollectContext, CollectEvent, Connector } from '../../src/connectors/types.ts';
import type { Database } from '../../src/store/db.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { testDatabases } from '../support/databases.ts';
import { createFakeConnector } from '../support/fake-connector.ts';
import { engineFor, seedCollection, syncOnce, useSyncStore } from '../support/sync-fixtures.ts';

/** The run events of a collection, oldest first, as the audit log holds them. */
async function runAudit(db: Database, collectionId: string) {
  const rows = await db
    .selectFrom('audit_log')
    .selectAll()
    .where('target_id', '=', collectionId)
    .where('action', 'like', 'run.%')
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({
    action: r.action,
    outcome: r.outcome,
    account_id: r.account_id,
    detail: r.detail ? (JSON.parse(r.detail) as Record<string, unknown>) : null,
  }));
}

/** A connector whose first attempt stops after one checkpoint until the run is aborted; later attempts finish. */
function pausingConnector(): Connector & { attempts: unknown[] } {
  const base = createFakeConnector({ source: () => ({ units: [] }) });
  const attempts: unknown[] = [];
  return {
    ...base,
    attempts,
    async *collect(ctx: CollectContext): AsyncIterable<CollectEvent> {
      attempts.push(ctx.checkpoint);
      const item = (id: string): CollectEvent => ({
        type: 'item',
        item: { kind: 'folder', sourceId: id, name: id, path: `/${id}`, custodian: 'u1', version: 'v1', metadata: {} },
      });
      if (ctx.checkpoint === null) {
        yield item('a');
        yield { type: 'checkpoint', state: { done: 'a' } };
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        yield item('never');
        return;
      }
      yield item('b');
      yield { type: 'checkpoint', state: { done: 'b' } };
    },
  };
}

for (const database of testDatabases) {
  describe(`audit of runs (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    useSyncStore(database, (s) => ({ db, blobs } = s));

    it('records one run.start and one run.finish per run, with the final status and the run id', async () => {
      const connector = createFakeConnector({
        source: () => ({ units: [{ items: [{ kind: 'folder', sourceId: 'x' }] }] }),
      });
      const { collectionId, accountId } = await seedCollection(db);
      const engine = engineFor(db, blobs, [connector], { workers: 'none' });
      const { runId, outcome } = await syncOnce(engine, collectionId);
      expect(outcome.status).toBe('succeeded');
      expect(await runAudit(db, collectionId)).toEqual([
        { action: 'run.start', outcome: 'started', account_id: accountId, detail: { run_id: runId, trigger: 'start' } },
        { action: 'run.finish', outcome: 'succeeded', account_id: accountId, detail: { run_id: runId } },
      ]);
    });

    it('an interrupted run that resumes still has exactly one start and one finish', async () => {
      const connector = pausingConnector();
      const { collectionId } = await seedCollection(db);
      const engine = engineFor(db, blobs, [connector], { workers: 'none' });
      const { runId } = await engine.start(collectionId);
      const shutdown = new AbortController();
      const first = engine.runOnce(runId, { signal: shutdown.signal });
      for (let i = 0; i < 400 && connector.attempts.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
      // Let the first checkpoint land, then stop the process's work as a shutdown would.
      for (let i = 0; i < 400 && !(await new RunRepo(db).get(runId))?.checkpoint; i++)
        await new Promise((r) => setTimeout(r, 5));
      shutdown.abort();
      expect((await first).status).toBe('interrupted');
      expect((await runAudit(db, collectionId)).map((e) => e.action)).toEqual(['run.start']);

      await new Promise((r) => setTimeout(r, 5));
      expect((await engine.runOnce(runId)).status).toBe('succeeded');
      expect(connector.attempts).toEqual([null, { done: 'a' }]);
      // the shutdown gave its attempt back: the run was taken up twice, and counts one attempt
      expect(await new RunRepo(db).get(runId)).toMatchObject({ attempt: 1, status: 'succeeded' });
      const events = await runAudit(db, collectionId);
      expect(events.map((e) => [e.action, e.outcome])).toEqual([
        ['run.start', 'started'],
        ['run.finish', 'succeeded'],
      ]);
    });

    it('records failed, error and cancelled finishes with their reason', async () => {
      const failing = createFakeConnector({
        source: () => ({ units: [{ items: [] }], failAfterUnit: { unit: 0, error: new Error('provider outage') } }),
      });
      const failed = await seedCollection(db);
      const failedRun = await syncOnce(engineFor(db, blobs, [failing], { workers: 'none' }), failed.collectionId);
      expect(failedRun.outcome.status).toBe('failed');
      expect((await runAudit(db, failed.collectionId))[1]).toMatchObject({
        action: 'run.finish',
        outcome: 'failed',
        detail: { run_id: failedRun.runId, reason: 'provider outage' },
      });

      const unpaired = await seedCollection(db, { grant: null });
      const errorRun = await syncOnce(engineFor(db, blobs, [failing], { workers: 'none' }), unpaired.collectionId);
      expect(errorRun.outcome.status).toBe('error');
      const errored = await runAudit(db, unpaired.collectionId);
      expect(errored.map((e) => [e.action, e.outcome])).toEqual([
        ['run.start', 'started'],
        ['run.finish', 'error'],
      ]);
      expect(errored[1].detail!.reason).toMatch(/re-pair/);

      const cancelled = await seedCollection(db);
      const engine = engineFor(db, blobs, [failing], { workers: 'none' });
      const { runId } = await engine.start(cancelled.collectionId);
      await engine.cancel(cancelled.collectionId);
      await engine.cancel(cancelled.collectionId);
      expect(await runAudit(db, cancelled.collectionId)).toEqual([
        {
          action: 'run.finish',
          outcome: 'cancelled',
          account_id: cancelled.accountId,
          detail: { run_id: runId, reason: 'cancelled' },
        },
      ]);
    });
  });
}
