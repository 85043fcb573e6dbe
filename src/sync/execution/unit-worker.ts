// Executes unit jobs in this process: claims a unit, keeps its lease alive, stops it on a cancel.
import type { Logger } from '../../connectors/types.ts';
import type { Metrics } from '../../metrics.ts';
import { RunRepo } from '../../store/runs.ts';
import { UnitJobRepo } from '../../store/unit-jobs.ts';
import { claimLease, holdLease, type HeldLease } from './lease.ts';
import type { RunnerDeps } from '../deps.ts';
import { scheduleNext, type NextRunDeps } from '../schedule/next-run.ts';
import { executeUnit, type UnitOutcome } from './unit-job.ts';
import { createRunMemos } from './unit-memo.ts';

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
  const local = new Map<string, { runId: string; lease: HeldLease; done: Promise<unknown> }>();
  const memoOf = createRunMemos(deps.runner);

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
        release: (now) => jobs.releaseLease(runId, unitKey, deps.owner, now.toISOString()),
      },
      { clock, leaseMs: deps.leaseMs, heartbeatMs: deps.heartbeatMs, stallMs: deps.stallMs },
      {
        outer: signal,
        log: deps.log,
        context: { run_id: runId, unit: unitKey, attempt: job.attempt },
        onStall: () => deps.metrics?.unitStalled(current.collection_id),
      },
    );
    const id = `${runId}\u0000${unitKey}`;
    const done = executeUnit(deps.runner, current, job, deps.owner, lease.signal, lease.onProgress, memo);
    local.set(id, { runId, lease, done });
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
    stopAll: () => stopRuns([...new Set([...local.values()].map((e) => e.runId))], 'shutdown'),
  };
}
