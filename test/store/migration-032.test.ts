import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.ts';
import { down, up } from '../../src/store/migrations/032_runs_without_ended_units.ts';
import { liveRunCounters } from '../../src/store/run-counters.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { UnitJobRepo } from '../../src/store/unit-jobs.ts';
import { testDatabases } from '../support/databases.ts';
import { fannedOutRun } from '../support/unit-runs.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';
const T2 = '2026-01-01T00:02:00.000Z';
const zero = { listed: 0, collected: 0, skipped: 0, unchanged: 0, failed: 0, bytes: 0, error_count: 0 };

for (const database of testDatabases) {
  describe(`migration 032 on ${database.name}: a run fanned out under the older code`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
    });
    afterAll(() => handle?.close());

    /** A fanned-out run: unit a collected 3 files (30 bytes) and ended, b collected 2 (20 bytes) and runs on. */
    async function midway(collectionId: string) {
      const runId = await fannedOutRun(db, collectionId, ['a', 'b'], T0);
      const jobs = new UnitJobRepo(db);
      for (const [key, collected] of [
        ['a', 3],
        ['b', 2],
      ] as const) {
        await jobs.claim(runId, key, `w-${key}`, T0, T2);
        const counters = { ...zero, listed: collected, collected, bytes: collected * 10 };
        await db
          .transaction()
          .execute((trx) => new UnitJobRepo(trx).saveProgress(runId, key, `w-${key}`, T1, { counters }));
      }
      expect((await jobs.finish(runId, 'a', 'w-a', 'done', T1)).finished).toBe(true);
      return runId;
    }
    /** What the older code's ending of unit a wrote on the run's row. */
    const olderEnding = (runId: string) =>
      db
        .updateTable('runs')
        .set((eb) => ({
          listed: eb('listed', '+', 3),
          collected: eb('collected', '+', 3),
          bytes: eb('bytes', '+', 30),
        }))
        .where('id', '=', runId)
        .execute();
    const totals = async (runId: string) => {
      const c = (await liveRunCounters(db, [runId])).get(runId)!;
      return [c.listed, c.collected, c.bytes];
    };
    const row = async (runId: string) => {
      const r = (await new RunRepo(db).get(runId))!;
      return [Number(r.listed), Number(r.collected), Number(r.bytes)];
    };

    it("takes the ended units' counters off a running run's row once, and leaves ended runs alone", async () => {
      const running = await midway('col-running');
      await olderEnding(running);
      const ended = await midway('col-ended');
      await olderEnding(ended);
      await db.updateTable('runs').set({ status: 'succeeded' }).where('id', '=', ended).execute();
      // before: the older row plus every unit's counters counts unit a twice
      expect(await totals(running)).toEqual([8, 8, 80]);

      await up(db);
      expect(await totals(running)).toEqual([5, 5, 50]);
      expect(await row(running)).toEqual([0, 0, 0]);
      expect(await row(ended)).toEqual([3, 3, 30]);

      await down(db);
      expect(await row(running)).toEqual([3, 3, 30]);
      expect(await row(ended)).toEqual([3, 3, 30]);
    });
  });
}
