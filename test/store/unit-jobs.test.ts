import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { liveRunCounters } from '../../src/store/run-counters.ts';
import { UnitJobRepo, unitsOwner } from '../../src/store/unit-jobs.ts';
import { UnitClaimRepo } from '../../src/store/unit-claims.ts';
import { testDatabases } from '../support/databases.ts';
import { fannedOutRun } from '../support/unit-runs.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';
const T2 = '2026-01-01T00:02:00.000Z';
const zero = { listed: 0, collected: 0, skipped: 0, unchanged: 0, failed: 0, bytes: 0, error_count: 0 };

for (const database of testDatabases) {
  describe(`unit jobs on ${database.name}`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    let n = 0;
    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
    });
    afterAll(() => handle?.close());

    /** A running run claimed by `planner`, fanned out into `keys`. */
    const fannedOut = (keys: string[]) => fannedOutRun(db, `col_${++n}`, keys, T0);

    it('fans a run out once: its units are queued, the run is no longer claimable as one job, a second fan-out adds nothing', async () => {
      const jobs = new UnitJobRepo(db);
      const runId = await fannedOut(['u1', 'u2']);
      const run = (await new RunRepo(db).get(runId))!;
      expect([run.status, run.lease_owner, run.lease_expires_at, run.units]).toEqual([
        'running',
        unitsOwner(runId),
        null,
        2,
      ]);
      expect((await new RunRepo(db).claimable(T2, 100)).map((r) => r.id)).not.toContain(runId);
      // The planner no longer owns the run: planning again is refused and changes nothing.
      expect(await jobs.fanOut(runId, 'planner', 'x', [{ key: 'u3', kind: 'custodian', email: null }], T1)).toBe(false);
      expect((await jobs.list(runId)).map((u) => [u.unit_key, u.status])).toEqual([
        ['u1', 'queued'],
        ['u2', 'queued'],
      ]);
    });

    it("gives a shutdown's attempt back only to the claim that made it, and leaves a later claim's lease alone", async () => {
      const jobs = new UnitJobRepo(db);
      const runId = await fannedOut(['u1']);
      const attemptOf = async () => (await jobs.get(runId, 'u1'))!;
      expect((await jobs.claim(runId, 'u1', 'w1', T0, T1))?.attempt).toBe(1);
      // w1 shuts down: its attempt is given back and the unit is free at once
      await jobs.releaseLease(runId, 'u1', 'w1', T0, 1, true);
      // given back at T0: lapsed already, a claim at T0 takes it
      expect(await attemptOf()).toMatchObject({ attempt: 0, lease_expires_at: '2025-12-31T23:59:59.999Z' });
      // taken up again by the same process, whose lease then lapsed and which took it up once more
      expect((await jobs.claim(runId, 'u1', 'w1', T0, T1))?.attempt).toBe(1);
      expect((await jobs.claim(runId, 'u1', 'w1', T2, '2026-01-01T00:03:00.000Z'))?.attempt).toBe(2);
      // the first of those two stops late: the later claim keeps its lease and its attempt
      await jobs.releaseLease(runId, 'u1', 'w1', T2, 1, true);
      expect(await attemptOf()).toMatchObject({ attempt: 2, lease_expires_at: '2026-01-01T00:03:00.000Z' });
    });

    it('lets exactly one worker claim a unit; another takes it over only once its lease expired', async () => {
      const jobs = new UnitJobRepo(db);
      const runId = await fannedOut(['u1']);
      expect((await jobs.claim(runId, 'u1', 'w1', T0, T1))?.lease_owner).toBe('w1');
      expect(await jobs.claim(runId, 'u1', 'w2', T0, T1)).toBeUndefined();
      // w1's lease (until T1) has expired at T2: w2 takes the unit over, and w1's writes are fenced out.
      const taken = await jobs.claim(runId, 'u1', 'w2', T2, '2026-01-01T00:03:00.000Z');
      expect([taken?.lease_owner, taken?.attempt]).toEqual(['w2', 2]);
      expect(await jobs.heartbeat(runId, 'u1', 'w1', T2, T2)).toBe(false);
      expect(
        await db
          .transaction()
          .execute((trx) =>
            new UnitJobRepo(trx).saveProgress(runId, 'u1', 'w1', T2, { counters: { ...zero, collected: 5 } }),
          ),
      ).toBe(false);
      expect(
        await db
          .transaction()
          .execute((trx) =>
            new UnitJobRepo(trx).saveProgress(runId, 'u1', 'w2', T2, { counters: { ...zero, collected: 3 } }),
          ),
      ).toBe(true);
      expect((await liveRunCounters(db, [runId])).get(runId)?.collected).toBe(3);
    });

    it("counts each unit's progress in the run once: live while it runs, in the run's row once the run is cancelled", async () => {
      const jobs = new UnitJobRepo(db);
      const runId = await fannedOut(['a', 'b', 'c']);
      for (const [k, w] of [
        ['a', 'w1'],
        ['b', 'w2'],
        ['c', 'w3'],
      ])
        await jobs.claim(runId, k, w, T0, T2);
      const save = (key: string, owner: string, collected: number, bytes: number) =>
        db.transaction().execute((trx) =>
          new UnitJobRepo(trx).saveProgress(runId, key, owner, T1, {
            counters: { ...zero, listed: collected, collected, bytes },
          }),
        );
      const live = async () => {
        const c = (await liveRunCounters(db, [runId])).get(runId)!;
        return [c.listed, c.collected, c.bytes];
      };
      const stored = async () => {
        const run = (await new RunRepo(db).get(runId))!;
        return [Number(run.listed), Number(run.collected), Number(run.bytes)];
      };
      expect(await save('a', 'w1', 2, 100)).toBe(true);
      expect(await save('b', 'w2', 4, 10)).toBe(true);
      expect(await save('a', 'w1', 3, 150)).toBe(true);
      expect(await save('c', 'w3', 1, 1)).toBe(true);
      expect(await live()).toEqual([8, 8, 161]);
      expect(await stored()).toEqual([0, 0, 0]);
      expect((await jobs.finish(runId, 'a', 'w1', 'done', T1)).finished).toBe(true);
      // an ending writes no run row: the run's row gets its units' counters once, when it ends or is cancelled
      expect(await stored()).toEqual([0, 0, 0]);
      expect(await live()).toEqual([8, 8, 161]);
      // a stale flush of the ended unit adds nothing
      expect(await save('a', 'w1', 9, 900)).toBe(false);
      await new RunRepo(db).cancelActive(`col_${n}`, T1);
      expect(await jobs.cancelRun(runId, T1)).toBe(2);
      expect(await stored()).toEqual([8, 8, 161]);
      expect(await live()).toEqual([8, 8, 161]);
      expect(await save('b', 'w2', 5, 11)).toBe(false);
      expect(await stored()).toEqual([8, 8, 161]);
    });

    if (database.name === 'postgres')
      it("lets two units of one run flush side by side: one unit's open flush does not hold up another's", async () => {
        const runId = await fannedOut(['p', 'q']);
        const jobs = new UnitJobRepo(db);
        await jobs.claim(runId, 'p', 'w1', T0, T2);
        await jobs.claim(runId, 'q', 'w2', T0, T2);
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        let flushedP: boolean | undefined;
        const p = db.transaction().execute(async (trx) => {
          flushedP = await new UnitJobRepo(trx).saveProgress(runId, 'p', 'w1', T1, {
            counters: { ...zero, listed: 1 },
          });
          await held;
        });
        while (flushedP === undefined) await new Promise((r) => setTimeout(r, 10));
        expect(flushedP).toBe(true);
        const q = db
          .transaction()
          .execute((trx) =>
            new UnitJobRepo(trx).saveProgress(runId, 'q', 'w2', T1, { counters: { ...zero, listed: 2 } }),
          );
        const first = await Promise.race([q, new Promise((r) => setTimeout(() => r('still waiting'), 3000))]);
        release();
        await p;
        await q;
        expect(first).toBe(true);
        expect((await liveRunCounters(db, [runId])).get(runId)?.listed).toBe(3);
      });

    if (database.name === 'postgres') {
      /** A cancel as queueing.ts commits it: the run row, then its units, in one transaction. */
      const cancelIn = (trx: Database, collectionId: string) =>
        new RunRepo(trx).cancelActive(collectionId, T1, async (run) => {
          await new UnitJobRepo(trx).cancelRun(run.id, T1);
        });
      const storedCollected = async (runId: string) => Number((await new RunRepo(db).get(runId))!.collected);

      it('a cancel that meets a flush in progress waits for it and counts what it committed, once', async () => {
        const runId = await fannedOut(['a']);
        const col = `col_${n}`;
        await new UnitJobRepo(db).claim(runId, 'a', 'w1', T0, T2);
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        let flushed: boolean | undefined;
        const flush = db.transaction().execute(async (trx) => {
          flushed = await new UnitJobRepo(trx).saveProgress(runId, 'a', 'w1', T1, {
            counters: { ...zero, listed: 5, collected: 5 },
          });
          await held;
        });
        while (flushed === undefined) await new Promise((r) => setTimeout(r, 10));
        const cancel = db.transaction().execute((trx) => cancelIn(trx, col));
        await new Promise((r) => setTimeout(r, 200));
        release();
        await flush;
        expect((await cancel).map((r) => r.id)).toEqual([runId]);
        expect(await storedCollected(runId)).toBe(5);
        expect((await liveRunCounters(db, [runId])).get(runId)?.collected).toBe(5);
      });

      it('a flush that meets a cancel in progress is fenced out once the cancel commits, and adds nothing', async () => {
        const runId = await fannedOut(['a']);
        const col = `col_${n}`;
        await new UnitJobRepo(db).claim(runId, 'a', 'w1', T0, T2);
        expect(
          await db
            .transaction()
            .execute((trx) =>
              new UnitJobRepo(trx).saveProgress(runId, 'a', 'w1', T1, { counters: { ...zero, collected: 2 } }),
            ),
        ).toBe(true);
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        let cancelled: number | undefined;
        const cancel = db.transaction().execute(async (trx) => {
          cancelled = (await cancelIn(trx, col)).length;
          await held;
        });
        while (cancelled === undefined) await new Promise((r) => setTimeout(r, 10));
        const flush = db
          .transaction()
          .execute((trx) =>
            new UnitJobRepo(trx).saveProgress(runId, 'a', 'w1', T1, { counters: { ...zero, collected: 7 } }),
          );
        await new Promise((r) => setTimeout(r, 200));
        release();
        await cancel;
        expect(await flush).toBe(false);
        expect(await storedCollected(runId)).toBe(2);
      });
    }

    it('tells exactly one of the units ending at the same time that it was the last', async () => {
      const jobs = new UnitJobRepo(db);
      const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
      const runId = await fannedOut(keys);
      for (const k of keys) await jobs.claim(runId, k, `w-${k}`, T0, T2);
      const ends = await Promise.all(
        keys.map((k) => db.transaction().execute((trx) => new UnitJobRepo(trx).finish(runId, k, `w-${k}`, 'done', T1))),
      );
      expect(ends.every((e) => e.finished)).toBe(true);
      expect(ends.filter((e) => e.last)).toHaveLength(1);
      // Ending twice is refused.
      expect(await jobs.finish(runId, 'k1', 'w-k1', 'done', T1)).toEqual({ finished: false, last: false });
    });

    it("an ending by a holder that lost the unit changes nothing; a failed unit's ending counts its failure once", async () => {
      const jobs = new UnitJobRepo(db);
      const runId = await fannedOut(['m', 'n']);
      await jobs.claim(runId, 'm', 'w1', T0, T1);
      await jobs.claim(runId, 'n', 'w3', T0, T2);
      const save = (owner: string, collected: number) =>
        db.transaction().execute((trx) =>
          new UnitJobRepo(trx).saveProgress(runId, 'm', owner, T1, {
            counters: { ...zero, listed: collected, collected },
          }),
        );
      const end = (owner: string, failure?: { error: string; needsAction: boolean }) =>
        db
          .transaction()
          .execute((trx) => new UnitJobRepo(trx).finish(runId, 'm', owner, failure ? 'failed' : 'done', T2, failure));
      const live = async () => {
        const c = (await liveRunCounters(db, [runId])).get(runId)!;
        return [c.listed, c.collected, c.failed, c.error_count];
      };
      expect(await save('w1', 4)).toBe(true);
      // w1's lease expired: w2 took the unit over and flushed
      await jobs.claim(runId, 'm', 'w2', T2, '2026-01-01T00:03:00.000Z');
      expect(await save('w2', 6)).toBe(true);
      expect(await end('w1', { error: 'lost', needsAction: false })).toEqual({ finished: false, last: false });
      expect((await jobs.get(runId, 'm'))?.status).toBe('running');
      expect(await live()).toEqual([6, 6, 0, 0]);
      expect(await end('w2', { error: 'gone', needsAction: false })).toEqual({ finished: true, last: false });
      expect(await live()).toEqual([6, 6, 1, 1]);
      expect(await end('w2', { error: 'again', needsAction: false })).toEqual({ finished: false, last: false });
      expect(await live()).toEqual([6, 6, 1, 1]);
    });

    it('stops every unit of a cancelled run: no claim, no write, no ending', async () => {
      const jobs = new UnitJobRepo(db);
      const runId = await fannedOut(['x', 'y']);
      await jobs.claim(runId, 'x', 'w1', T0, T2);
      await new RunRepo(db).cancelActive(`col_${n}`, T1);
      expect(await jobs.cancelRun(runId, T1)).toBe(2);
      expect(await jobs.claim(runId, 'y', 'w2', T1, T2)).toBeUndefined();
      expect(await jobs.heartbeat(runId, 'x', 'w1', T1, T2)).toBe(false);
      expect(
        await db
          .transaction()
          .execute((trx) => new UnitJobRepo(trx).saveProgress(runId, 'x', 'w1', T1, { counters: zero })),
      ).toBe(false);
      expect(await jobs.finish(runId, 'x', 'w1', 'done', T1)).toEqual({ finished: false, last: false });
      expect((await jobs.claimable(T2, 100)).filter((u) => u.run_id === runId)).toEqual([]);
    });

    it('gives a piece two units reach to the first that claims it, also after a takeover', async () => {
      const claims = new UnitClaimRepo(db);
      const runId = await fannedOut(['o1', 'o2']);
      expect(await claims.claimPiece(runId, 'ch1', 'o2')).toBe(true);
      expect(await claims.claimPiece(runId, 'ch1', 'o1')).toBe(false);
      expect(await claims.claimPiece(runId, 'ch1', 'o2')).toBe(true);
      expect(await claims.claimedUnits(runId, 'o2')).toEqual(['ch1']);
    });
  });
}
