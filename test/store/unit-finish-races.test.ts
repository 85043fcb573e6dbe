import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.ts';
import type { Counters } from '../../src/store/runs.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { liveRunCounters } from '../../src/store/run-counters.ts';
import type { Executor } from '../../src/store/transaction.ts';
import { UnitJobRepo } from '../../src/store/unit-jobs.ts';
import { testDatabases } from '../support/databases.ts';
import { fannedOutRun } from '../support/unit-runs.ts';

// A unit's ending adds counters its caller read before the transaction (UnitJobRepo.finish): these races must count
// each unit's work in its run exactly once.
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';
const T2 = '2026-01-01T00:02:00.000Z';
const T3 = '2026-01-01T00:03:00.000Z';
const zero: Counters = { listed: 0, collected: 0, skipped: 0, unchanged: 0, failed: 0, bytes: 0, error_count: 0 };
const counted = (n: number): Counters => ({ ...zero, listed: n, collected: n, bytes: 10 * n });

for (const database of testDatabases) {
  describe(`a unit's ending racing a takeover or a cancel on ${database.name}`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    let n = 0;
    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
    });
    afterAll(() => handle?.close());

    const fannedOut = async (keys: string[]) => {
      const collectionId = `col_race_${++n}`;
      return { runId: await fannedOutRun(db, collectionId, keys, T0), collectionId };
    };
    const save = (ex: Executor, runId: string, key: string, owner: string, c: Counters) =>
      new UnitJobRepo(ex).saveProgress(runId, key, owner, T2, { counters: c });
    // `_read`: what the holder last wrote (an ending used to add it; now the unit's row keeps it)
    const end = (ex: Executor, runId: string, key: string, owner: string, _read: Counters) =>
      db === ex
        ? ex.transaction().execute((trx) => new UnitJobRepo(trx).finish(runId, key, owner, 'done', T2))
        : new UnitJobRepo(ex).finish(runId, key, owner, 'done', T2);
    /** The run's counters as readers see them (its row's once it ended; while it runs, with its units'). */
    const stored = async (runId: string) => {
      const c = (await liveRunCounters(db, [runId])).get(runId)!;
      return [c.listed, c.collected, c.bytes];
    };
    const cancel = (ex: Executor, collectionId: string) =>
      new RunRepo(ex).cancelActive(collectionId, T3, async (run) => {
        await new UnitJobRepo(ex).cancelRun(run.id, T3);
      });

    it("counts a unit once when the worker that took it over ends it before the first holder's stale ending", async () => {
      const { runId, collectionId } = await fannedOut(['m', 'o']);
      await new UnitJobRepo(db).claim(runId, 'm', 'w1', T0, T1);
      expect(await db.transaction().execute((trx) => save(trx, runId, 'm', 'w1', counted(4)))).toBe(true);
      // w1 read its counters (4) for its ending; then its lease expired and w2 took the unit over and ended it
      const read = counted(4);
      expect(await new UnitJobRepo(db).claim(runId, 'm', 'w2', T2, T3)).toBeDefined();
      expect(await db.transaction().execute((trx) => save(trx, runId, 'm', 'w2', counted(6)))).toBe(true);
      expect(await end(db, runId, 'm', 'w2', counted(6))).toEqual({ finished: true, last: false });
      expect(await end(db, runId, 'm', 'w1', read)).toEqual({ finished: false, last: false });
      expect(await stored(runId)).toEqual([6, 6, 60]);
      expect((await liveRunCounters(db, [runId])).get(runId)?.collected).toBe(6);
      // a cancel afterwards adds the open unit alone
      await new UnitJobRepo(db).claim(runId, 'o', 'w3', T2, T3);
      expect(await db.transaction().execute((trx) => save(trx, runId, 'o', 'w3', counted(1)))).toBe(true);
      await db.transaction().execute((trx) => cancel(trx, collectionId));
      expect(await stored(runId)).toEqual([7, 7, 70]);
    });

    // True concurrency: PostgreSQL's pool; SQLite has one connection, its transactions never overlap.
    if (database.name !== 'postgres') return;

    /** Opens a transaction on its own connection, runs `first` in it, and keeps it open until `commit` is called. */
    const held = async <T>(first: (trx: Executor) => Promise<T>) => {
      let commit!: () => void;
      const gate = new Promise<void>((r) => (commit = r));
      let ready!: (v: { pid: number; value: T }) => void;
      const opened = new Promise<{ pid: number; value: T }>((r) => (ready = r));
      const done = db.transaction().execute(async (trx) => {
        const value = await first(trx);
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        ready({ pid: Number(rows[0].pid), value });
        await gate;
      });
      const { pid, value } = await opened;
      return { pid, value, commit: async () => (commit(), done) };
    };
    /** Until another backend waits on a lock `pid` holds (polled: no clock, no timeout of ours). */
    const blockedBy = async (pid: number) => {
      for (;;) {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`.execute(db);
        if (rows[0].n > 0) return;
        await new Promise((r) => setImmediate(r));
      }
    };

    it('refuses an ending that waited for a takeover to commit: the unit counts once, as its taker left it', async () => {
      const { runId } = await fannedOut(['m', 'o']);
      await new UnitJobRepo(db).claim(runId, 'm', 'w1', T0, T1);
      expect(await db.transaction().execute((trx) => save(trx, runId, 'm', 'w1', counted(4)))).toBe(true);
      const read = counted(4);
      // w2's takeover and first flush, not yet committed when w1's ending runs
      const flush = await held(async (trx) => {
        expect(await new UnitJobRepo(trx).claim(runId, 'm', 'w2', T2, T3)).toBeDefined();
        return save(trx, runId, 'm', 'w2', counted(6));
      });
      expect(flush.value).toBe(true);
      const ending = end(db, runId, 'm', 'w1', read);
      await blockedBy(flush.pid);
      await flush.commit();
      expect(await ending).toEqual({ finished: false, last: false });
      expect(await stored(runId)).toEqual([6, 6, 60]);
      expect((await liveRunCounters(db, [runId])).get(runId)?.collected).toBe(6);
    });

    it('counts a unit once when a cancel holding the run row commits before its ending', async () => {
      const { runId, collectionId } = await fannedOut(['m', 'o']);
      await new UnitJobRepo(db).claim(runId, 'm', 'w1', T0, T3);
      expect(await db.transaction().execute((trx) => save(trx, runId, 'm', 'w1', counted(4)))).toBe(true);
      const stop = await held((trx) => cancel(trx, collectionId));
      const ending = end(db, runId, 'm', 'w1', counted(4));
      await blockedBy(stop.pid);
      await stop.commit();
      expect(await ending).toEqual({ finished: false, last: false });
      expect(await stored(runId)).toEqual([4, 4, 40]);
    });

    it('counts a unit once when its ending holds the run row while a cancel waits', async () => {
      const { runId, collectionId } = await fannedOut(['m', 'o']);
      await new UnitJobRepo(db).claim(runId, 'm', 'w1', T0, T3);
      await new UnitJobRepo(db).claim(runId, 'o', 'w2', T0, T3);
      expect(await db.transaction().execute((trx) => save(trx, runId, 'm', 'w1', counted(4)))).toBe(true);
      expect(await db.transaction().execute((trx) => save(trx, runId, 'o', 'w2', counted(2)))).toBe(true);
      const ending = await held((trx) => end(trx, runId, 'm', 'w1', counted(4)));
      expect(ending.value).toEqual({ finished: true, last: false });
      const stopping = db.transaction().execute((trx) => cancel(trx, collectionId));
      await blockedBy(ending.pid);
      await ending.commit();
      expect((await stopping).map((r) => r.id)).toEqual([runId]);
      expect(await stored(runId)).toEqual([6, 6, 60]);
      expect((await new UnitJobRepo(db).list(runId)).map((u) => u.status)).toEqual(['done', 'cancelled']);
    });

    it('lets exactly one of two endings that wait on each other see the last unit, each counted once', async () => {
      const { runId } = await fannedOut(['m', 'o']);
      await new UnitJobRepo(db).claim(runId, 'm', 'w1', T0, T3);
      await new UnitJobRepo(db).claim(runId, 'o', 'w2', T0, T3);
      expect(await db.transaction().execute((trx) => save(trx, runId, 'm', 'w1', counted(4)))).toBe(true);
      expect(await db.transaction().execute((trx) => save(trx, runId, 'o', 'w2', counted(2)))).toBe(true);
      const first = await held((trx) => end(trx, runId, 'm', 'w1', counted(4)));
      const second = end(db, runId, 'o', 'w2', counted(2));
      await blockedBy(first.pid);
      await first.commit();
      expect([first.value, await second]).toEqual([
        { finished: true, last: false },
        { finished: true, last: true },
      ]);
      expect(await stored(runId)).toEqual([6, 6, 60]);
    });
  });
}
