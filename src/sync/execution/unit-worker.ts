// Executes unit jobs in this process: claims a unit, keeps its lease alive, stops it on a cancel.
import type { Logger } from '../../connectors/types.ts';
import type { Metrics } from '../../metrics.ts';
import { RunRepo } from '../../store/runs.ts';
import { UnitJobRepo } from '../../store/unit-jobs.ts';
import { claimLease, holdLease, workerStop, type HeldLease } from './lease.ts';
import type { RunnerDeps } from '../deps.ts';
import { scheduleNext, type NextRunDeps } from '../schedule/next-run.ts';
import { executeUnit, type UnitOutcome } from './unit-job.ts';
import { createRunMemos } from './unit-memo.ts';
import { takesOnMore, UnitLoad } from './unit-load.ts';

export interface UnitWorkerDeps {
  runner: RunnerDeps;
  owner: string;
  leaseMs: number;
  heartbeatMs: number;
  /** UNIT_STALL_SECONDS in ms: a unit without progress this long is stopped and retried like a crash. */
  stallMs: number;
  isDeadOwner(leaseOwner: string | null): boolean;
  /** this process's owner prefix (PID namespace), to spot units of dead processes */
  ownerPrefix: string | undefined;
  metrics?: Metrics;
  log: Logger;
  /** After a run ended through this process's fan-in: its collection's next run becomes a job (schedule/next-run.ts). */
  next: NextRunDeps;
}

/** How often the units of a run here are looked at for taking on another (grow). */
const GROW_TICK_MS = 250;

export interface UnitWorker {
  run(runId: string, unitKey: string, signal?: AbortSignal): Promise<UnitOutcome | { status: 'not_claimed' }>;
  /** Units this process may take now: queued units of running runs, expired leases, dead owners. */
  claimable(limit: number): Promise<Array<{ run_id: string; unit_key: string }>>;
  /** Stops this process's units of these runs (a cancel committed) and waits for them. */
  stopRuns(runIds: string[], why: 'cancelled' | 'shutdown'): Promise<void>;
  stopAll(): Promise<void>;
}

export function createUnitWorker(deps: UnitWorkerDeps): UnitWorker {
  const db = deps.runner.db;
  const jobs = new UnitJobRepo(db);
  const runs = new RunRepo(db);
  const clock = deps.runner.clock;
  const local = new Map<string, { runId: string; lease: HeldLease; done: Promise<unknown>; load: UnitLoad }>();
  const memoOf = createRunMemos(deps.runner);
  const growing = new Set<string>();
  /** Aborted by stopAll: the units taken on (grow) stop with it, and a unit claimed from then on goes back at once. */
  const shutdown = workerStop();
  /** The units taken on, until they end (stopAll waits for them, also for one still being claimed). */
  const takenOn = new Set<Promise<unknown>>();
  /** Looks for a unit to take on under way: stopAll waits for them (they read the database). */
  const looks = new Set<Promise<void>>();

  const run: UnitWorker['run'] = async (runId, unitKey, signal) => {
    // the status alone: the run's row carries its filters, and the rest of it the memo read once
    if ((await runs.status(runId)) !== 'running') return { status: 'not_claimed' };
    const memo = memoOf(runId);
    const current = await memo.run();
    if (!current) return { status: 'not_claimed' };
    const job = await claimLease(
      await jobs.get(runId, unitKey),
      (at, until, dead) => jobs.claim(runId, unitKey, deps.owner, at, until, dead),
      { clock, leaseMs: deps.leaseMs, isDeadOwner: deps.isDeadOwner },
    );
    if (!job) return { status: 'not_claimed' };
    const outer = signal ? AbortSignal.any([signal, shutdown.signal]) : shutdown.signal;
    if (outer.aborted) {
      // stopped while it was being claimed (a shutdown): let another process take it at once
      await jobs.releaseLease(runId, unitKey, deps.owner, clock().toISOString(), job.attempt, true);
      return { status: 'not_claimed' };
    }
    const lease = holdLease(
      {
        renew: (now, until, lastProgress) =>
          jobs.heartbeat(
            runId,
            unitKey,
            deps.owner,
            now.toISOString(),
            until.toISOString(),
            lastProgress.toISOString(),
          ),
        wasCancelled: async () => (await jobs.get(runId, unitKey))?.status === 'cancelled',
        release: (now, shutdown) =>
          jobs.releaseLease(runId, unitKey, deps.owner, now.toISOString(), job.attempt, shutdown),
      },
      { clock, leaseMs: deps.leaseMs, heartbeatMs: deps.heartbeatMs, stallMs: deps.stallMs },
      {
        outer,
        log: deps.log,
        context: { run_id: runId, unit: unitKey, attempt: job.attempt },
        onStall: () => deps.metrics?.unitStalled(current.collection_id),
      },
    );
    const id = `${runId}\u0000${unitKey}`;
    const load = new UnitLoad();
    const done = executeUnit(deps.runner, current, job, deps.owner, lease.signal, lease.onProgress, memo, load);
    local.set(id, { runId, lease, done, load });
    grow(runId);
    try {
      const outcome = await done;
      await lease.end({ release: outcome.status === 'interrupted' });
      const ran = outcome.status === 'done' || outcome.status === 'failed' ? outcome.ran : undefined;
      if (ran) {
        deps.metrics?.runFinished(current.collection_id, ran);
        deps.log.info({ run_id: runId, outcome: ran }, 'run finished');
        await scheduleNext(deps.next, current.collection_id);
      }
      return outcome;
    } finally {
      await lease.end();
      local.delete(id);
    }
  };

  /**
   * While units of the run execute here, every GROW_TICK_MS: when the rule of unit-load.ts (takesOnMore) says so, one
   * more of the run's queued units is taken on (issue 25: a unit listing one page after the other keeps one request
   * in flight, and a provider answering in 300 ms left most of the rate unused). The job queue's own concurrency
   * (WORKER_CONCURRENCY) is not spent: a unit taken on here is claimed and leased like any other, and its job, when it
   * comes, finds it claimed. One a tick: units taken on faster (half as many again a tick) sent bursts past a limit not
   * known yet, 1.5–5 % of a run's requests answered 429 (docs/benchmarks.md, session 20).
   */
  const grow = (runId: string) => {
    if (growing.has(runId)) return;
    growing.add(runId);
    let elu = performance.eventLoopUtilization();
    let looking = false;
    const timer = setInterval(() => {
      const mine = [...local.values()].filter((e) => e.runId === runId);
      const waited = mine.map((e) => e.load.starved.read().mean);
      for (const e of mine) e.load.starved.reset();
      const busy = performance.eventLoopUtilization(elu).utilization;
      elu = performance.eventLoopUtilization();
      if (mine.length === 0) {
        clearInterval(timer);
        growing.delete(runId);
        return;
      }
      const budget = mine.find((e) => e.load.budget)?.load.budget;
      if (looking || !budget) return;
      const more = takesOnMore({
        starved: waited.reduce((a, b) => a + b, 0) / mine.length,
        busy,
        room: budget.hasRoom(),
        // the credential's units of every run here, and the run's units still opening their session
        units: [...local.values()].filter((e) => e.load.budget === budget || (e.runId === runId && !e.load.budget))
          .length,
        concurrency: budget.concurrency,
        takenOn: takenOn.size,
        stopping: shutdown.signal.aborted || mine.some((e) => e.lease.signal.aborted),
      });
      if (!more) return;
      looking = true;
      const look = takeOneOn(runId).finally(() => {
        looking = false;
        looks.delete(look);
      });
      looks.add(look);
    }, GROW_TICK_MS);
    timer.unref();
  };

  /** Claims and runs the run's first queued unit, if any, as one taken on (grow). */
  const takeOneOn = async (runId: string): Promise<void> => {
    let key: string | undefined;
    try {
      key = await jobs.firstQueued(runId);
    } catch (err) {
      deps.log.warn({ err, run_id: runId }, 'could not look for more units');
    }
    if (key === undefined || shutdown.signal.aborted) return;
    const taking = run(runId, key)
      .catch((err: unknown) => deps.log.error({ err, run_id: runId, unit: key }, 'a unit taken on crashed'))
      .finally(() => takenOn.delete(taking));
    takenOn.add(taking);
  };

  const stopRuns = async (runIds: string[], why: 'cancelled' | 'shutdown') => {
    const mine = [...local.values()].filter((e) => runIds.includes(e.runId));
    for (const e of mine) e.lease.stop(why);
    await Promise.all(mine.map((e) => e.done.catch(() => undefined)));
  };

  return {
    run,
    async claimable(limit) {
      const rows = await jobs.claimable(clock().toISOString(), limit);
      const orphaned = deps.ownerPrefix
        ? (await jobs.runningOwnedBy(deps.ownerPrefix)).filter((r) => deps.isDeadOwner(r.lease_owner))
        : [];
      const units = [...orphaned, ...rows].map((r) => ({ run_id: r.run_id, unit_key: r.unit_key }));
      return [...new Map(units.map((u) => [`${u.run_id}\u0000${u.unit_key}`, u])).values()];
    },
    stopRuns,
    async stopAll() {
      shutdown.abort();
      await stopRuns([...new Set([...local.values()].map((e) => e.runId))], 'shutdown');
      await Promise.all(looks);
      await Promise.all(takenOn);
    },
  };
}
