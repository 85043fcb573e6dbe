import { describe, expect, it } from 'vitest';
import type { FsBlobStore } from '../../src/blobs/index.ts';
import type { CollectContext, CollectEvent, Connector } from '../../src/connectors/types.ts';
import type { Database } from '../../src/store/db.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { testDatabases } from '../support/databases.ts';
import { createFakeConnector } from '../support/fake-connector.ts';
import { parseUnitJobId } from '../../src/sync/jobs/registry.ts';
import { engineFor, seedCollection, useSyncStore } from '../support/sync-fixtures.ts';

const STALL_SECONDS = 60;

/**
 * The progress watchdog (UNIT_STALL_SECONDS) covers every run, not only unit jobs: a planner that never answers
 * (even one that ignores its signal), and the single unit of a connector without a planner, are stopped after
 * UNIT_STALL_SECONDS without progress, retried, and after 3 stalled attempts the run ends `failed`. Time passes
 * on an injected clock; the real wait is the watchdog's check interval only.
 */
for (const database of testDatabases) {
  describe(`runs that make no progress are stopped and end (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    useSyncStore(database, (s) => ({ db, blobs } = s));

    let offsetMs = 0;
    const clock = () => new Date(Date.now() + offsetMs);

    /**
     * Starts the run, and on each attempt waits until `started()` grows, then stops it as `stops` says: this process
     * shutting down, or STALL_SECONDS passing without progress. `unit`: the attempts are of the run's one unit job
     * (the plan runs first), not of the run.
     */
    const stopEach = async (
      connector: Connector,
      started: () => number,
      stops: Array<'shutdown' | 'stall'> = ['stall', 'stall', 'stall'],
      unit = false,
    ) => {
      const { collectionId } = await seedCollection(db);
      const engine = engineFor(db, blobs, [connector], {
        workers: 'none',
        clock,
        unitStallSeconds: STALL_SECONDS,
        tuning: { heartbeatMs: 20 },
      });
      const { runId } = await engine.start(collectionId);
      if (unit) expect((await engine.runOnce(runId)).status).toBe('fanned_out');
      const claimable = async () => {
        const ids = await engine.claimableRunIds(10);
        return unit
          ? ids.map(parseUnitJobId).find((u) => u?.run_id === runId)?.unit_key
          : ids.find((id) => id === runId);
      };
      const outcomes: Array<{ status: string; error?: string | null }> = [];
      for (const [i, stop] of stops.entries()) {
        // as the sweep does: a stopped attempt released its lease, and the run is taken again once claimable
        let key: string | undefined;
        for (let n = 0; n < 500 && !(key = await claimable()); n++) await new Promise((r) => setTimeout(r, 10));
        const shutdown = new AbortController();
        const running = unit
          ? engine.runUnit(runId, key!, { signal: shutdown.signal })
          : engine.runOnce(runId, { signal: shutdown.signal });
        for (let n = 0; n < 500 && started() <= i; n++) await new Promise((r) => setTimeout(r, 10));
        expect(started()).toBe(i + 1);
        if (stop === 'shutdown') shutdown.abort();
        else offsetMs += (STALL_SECONDS + 1) * 1000;
        outcomes.push(await running);
      }
      await engine.stop();
      const run = await new RunRepo(db).get(runId);
      const collection = await db
        .selectFrom('collections')
        .select(['sync_status', 'status_reason'])
        .where('id', '=', collectionId)
        .executeTakeFirstOrThrow();
      const job = await db
        .selectFrom('unit_jobs')
        .select(['attempt', 'status', 'error'])
        .where('run_id', '=', runId)
        .executeTakeFirst();
      return { outcomes, run, collection, job };
    };
    const stallThreeTimes = (connector: Connector, started: () => number) => stopEach(connector, started);

    const expectEnded = (r: Awaited<ReturnType<typeof stallThreeTimes>>) => {
      expect(r.outcomes.map((o) => o.status)).toEqual(['interrupted', 'interrupted', 'failed']);
      expect(r.outcomes[2].error).toMatch(/no progress for UNIT_STALL_SECONDS on each of its 3 attempts/);
      expect(r.run).toMatchObject({ status: 'failed', attempt: 3 });
      expect(r.collection.sync_status).toBe('failed');
      expect(r.collection.status_reason).toMatch(/no progress/);
    };

    it('a planner that never answers is stopped at each attempt, and the run ends failed', async () => {
      const base = createFakeConnector({ source: () => ({ units: [] }), split: true });
      let plans = 0;
      const connector: Connector = {
        ...base,
        units: {
          ...base.units!,
          // never settles and never looks at its signal
          plan: () => {
            plans += 1;
            return new Promise(() => undefined);
          },
        },
      };
      expectEnded(await stallThreeTimes(connector, () => plans));
    }, 30_000);

    it('the single unit of a connector without a planner is watched the same way', async () => {
      const base = createFakeConnector({ source: () => ({ units: [] }) });
      let collects = 0;
      const connector: Connector = {
        ...base,
        async *collect(ctx: CollectContext): AsyncIterable<CollectEvent> {
          collects += 1;
          // a provider that stops answering: the request waits until the run's signal aborts it
          await new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
          );
          yield* [];
        },
      };
      expectEnded(await stallThreeTimes(connector, () => collects));
    }, 30_000);

    /** A connector whose every attempt (of its plan, or of its one unit) waits until its signal aborts it. */
    const neverAnswers = (split: boolean) => {
      const base = createFakeConnector({ source: () => ({ units: [{ custodian: { key: 'u1' }, items: [] }] }), split });
      const calls = { n: 0 };
      const connector: Connector = {
        ...base,
        async *collect(ctx: CollectContext): AsyncIterable<CollectEvent> {
          calls.n += 1;
          await new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
          );
          yield* [];
        },
      };
      return { connector, started: () => calls.n };
    };
    const shutdownsBetweenStalls: Array<'shutdown' | 'stall'> = [
      'shutdown',
      'stall',
      'shutdown',
      'stall',
      'shutdown',
      'stall',
    ];

    it("a shutdown is not one of the run's attempts: it fails after its third stall, not before", async () => {
      const { connector, started } = neverAnswers(false);
      const r = await stopEach(connector, started, shutdownsBetweenStalls);
      expect(r.outcomes.map((o) => o.status)).toEqual([...Array(5).fill('interrupted'), 'failed']);
      expect(r.outcomes[5].error).toMatch(/no progress for UNIT_STALL_SECONDS on each of its 3 attempts/);
      expect(r.run).toMatchObject({ status: 'failed', attempt: 3 });
    }, 30_000);

    it("a shutdown is not one of a unit's attempts: it fails after its third stall, not before", async () => {
      const { connector, started } = neverAnswers(true);
      const r = await stopEach(connector, started, shutdownsBetweenStalls, true);
      expect(r.outcomes.map((o) => o.status)).toEqual([...Array(5).fill('interrupted'), 'failed']);
      expect(r.job).toMatchObject({ status: 'failed', attempt: 3 });
      expect(r.job?.error).toMatch(/no progress for UNIT_STALL_SECONDS on each of its 3 attempts/);
      expect(r.run?.status).toBe('failed');
    }, 30_000);

    it('a process that is stopping gives back a run or a unit it takes up, its attempt not counted', async () => {
      const source = () => ({ units: [{ custodian: { key: 'u1' }, items: [] }] });
      const attemptOf = async (runId: string) =>
        (await db.selectFrom('runs').select(['attempt', 'status']).where('id', '=', runId).executeTakeFirstOrThrow())
          .attempt;
      // a run of one job: a stopped engine takes it up and gives it back; another process runs it
      const plain = await seedCollection(db);
      const stopped = engineFor(db, blobs, [createFakeConnector({ source })], { workers: 'none' });
      const { runId } = await stopped.start(plain.collectionId);
      await stopped.stop();
      expect((await stopped.runOnce(runId)).status).toBe('not_claimed');
      expect(await attemptOf(runId)).toBe(0);
      const other = engineFor(db, blobs, [createFakeConnector({ source })], { workers: 'none' });
      expect((await other.runOnce(runId)).status).toBe('succeeded');
      expect(await attemptOf(runId)).toBe(1);
      // a unit job, the same
      const split = await seedCollection(db);
      const planner = engineFor(db, blobs, [createFakeConnector({ source, split: true })], { workers: 'none' });
      const fanned = await planner.start(split.collectionId);
      expect((await planner.runOnce(fanned.runId)).status).toBe('fanned_out');
      await planner.stop();
      expect((await planner.runUnit(fanned.runId, 'u1')).status).toBe('not_claimed');
      const job = () =>
        db.selectFrom('unit_jobs').select(['attempt', 'status']).where('run_id', '=', fanned.runId).executeTakeFirst();
      expect(await job()).toEqual({ attempt: 0, status: 'running' });
      const unitsElsewhere = engineFor(db, blobs, [createFakeConnector({ source, split: true })], { workers: 'none' });
      expect((await unitsElsewhere.runUnit(fanned.runId, 'u1')).status).toBe('done');
      expect(await job()).toEqual({ attempt: 1, status: 'done' });
      await other.stop();
      await unitsElsewhere.stop();
    }, 30_000);

    it('a run without units that the database turned away is tried again, up to 3 attempts', async () => {
      const base = createFakeConnector({ source: () => ({ units: [] }) });
      let turnedAway = 0;
      const connector: Connector = {
        ...base,
        async *collect(ctx: CollectContext): AsyncIterable<CollectEvent> {
          if (turnedAway-- > 0) throw Object.assign(new Error('sorry, too many clients already'), { code: '53300' });
          yield* base.collect(ctx);
        },
      };
      const engine = engineFor(db, blobs, [connector], { workers: 'none', clock });
      /** As the sweep does: an interrupted run is taken again once claimable. */
      const attempt = async (runId: string) => {
        for (let i = 0; i < 500 && !(await engine.claimableRunIds(10)).includes(runId); i++)
          await new Promise((r) => setTimeout(r, 10));
        return (await engine.runOnce(runId)).status;
      };
      const runOf = async (times: number) => {
        turnedAway = times;
        const { collectionId } = await seedCollection(db);
        const { runId } = await engine.start(collectionId);
        const statuses = [await attempt(runId), await attempt(runId)];
        if (statuses[1] === 'interrupted') statuses.push(await attempt(runId));
        return { statuses, run: await new RunRepo(db).get(runId) };
      };
      const once = await runOf(1);
      expect(once.statuses).toEqual(['interrupted', 'succeeded']);
      expect(once.run).toMatchObject({ status: 'succeeded', attempt: 2 });
      const always = await runOf(3);
      expect(always.statuses).toEqual(['interrupted', 'interrupted', 'failed']);
      expect(always.run).toMatchObject({ status: 'failed', attempt: 3 });
      await engine.stop();
    }, 30_000);
  });
}
