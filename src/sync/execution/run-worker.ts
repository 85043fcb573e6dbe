// Executes runs in this process: claims a run, keeps its lease alive (and watches its progress), executes it
// (runner.ts), and stops it on a cancel or a shutdown. The `custody.run` job (jobs/handlers.ts) calls runOnce.
import type { Logger } from '../../connectors/types.ts';
import type { Metrics } from '../../metrics.ts';
import { RunRepo } from '../../store/runs.ts';
import type { RunnerDeps } from '../deps.ts';
import { claimLease, holdLease, workerStop, type HeldLease } from './lease.ts';
import { executeRun, type RunOutcome } from './runner.ts';

export interface RunWorkerDeps {
  runner: RunnerDeps;
  owner: string;
  leaseMs: number;
  heartbeatMs: number;
  /** UNIT_STALL_SECONDS in ms: planning, or a run's single unit, without progress this long is stopped and retried. */
  stallMs: number;
  isDeadOwner(leaseOwner: string | null): boolean;
  metrics?: Metrics;
  log: Logger;
}

export interface RunWorker {
  /** Executes one run to its end (or its fan-out) in this process; claims it first. */
  runOnce(runId: string, opts?: { signal?: AbortSignal }): Promise<RunOutcome>;
  /** Stops this process's run of the collection, if any (a cancel committed), and waits until it no longer writes. */
  stopCollection(collectionId: string, why: 'cancelled' | 'shutdown'): Promise<void>;
  stopAll(): Promise<void>;
}

export function createRunWorker(deps: RunWorkerDeps): RunWorker {
  const { clock } = deps.runner;
  const { owner, leaseMs, heartbeatMs, stallMs } = deps;
  const runs = new RunRepo(deps.runner.db);
  const local = new Map<string, { runId: string; lease: HeldLease; done: Promise<RunOutcome> }>();
  /** Aborted by stopAll: a run this process takes up from then on goes back at once (the process is going away). */
  const shutdown = workerStop();

  const runOnce: RunWorker['runOnce'] = async (runId, opts = {}) => {
    const run = await claimLease(
      await runs.get(runId),
      (at, until, dead) => runs.claim(runId, owner, at, until, dead),
      { clock, leaseMs, isDeadOwner: deps.isDeadOwner },
    );
    if (!run) return { status: 'not_claimed', error: null };
    const outer = opts.signal ? AbortSignal.any([opts.signal, shutdown.signal]) : shutdown.signal;
    if (outer.aborted) {
      // claimed while this process stops: another takes it up at once, and this attempt does not count
      await runs.releaseLease(runId, owner, clock().toISOString(), run.attempt, true);
      return { status: 'not_claimed', error: null };
    }
    // Planning and the run's own unit are watched like unit jobs: no progress for UNIT_STALL_SECONDS stops them.
    const lease = holdLease(
      {
        renew: (at, until) => runs.heartbeat(runId, owner, at.toISOString(), until.toISOString()),
        wasCancelled: async () => (await runs.get(runId))?.status === 'cancelled',
        release: (at, shutdown) => runs.releaseLease(runId, owner, at.toISOString(), run.attempt, shutdown),
      },
      { clock, leaseMs, heartbeatMs, stallMs },
      {
        outer,
        log: deps.log,
        context: { run_id: runId, attempt: run.attempt },
        onStall: () => deps.metrics?.unitStalled(run.collection_id),
      },
    );
    const done = executeRun(deps.runner, run, owner, lease);
    local.set(run.collection_id, { runId, lease, done });
    try {
      const outcome = await done;
      if (outcome.status !== 'fanned_out') deps.metrics?.runFinished(run.collection_id, outcome.status);
      await lease.end({ release: outcome.status === 'interrupted' });
      return outcome;
    } finally {
      await lease.end();
      if (local.get(run.collection_id)?.runId === runId) local.delete(run.collection_id);
    }
  };

  const stop = async (entries: Array<{ lease: HeldLease; done: Promise<unknown> }>, why: 'cancelled' | 'shutdown') => {
    for (const e of entries) e.lease.stop(why);
    await Promise.all(entries.map((e) => e.done.catch(() => undefined)));
  };

  return {
    runOnce,
    async stopCollection(collectionId, why) {
      const mine = local.get(collectionId);
      if (mine) await stop([mine], why);
    },
    stopAll() {
      shutdown.abort();
      return stop([...local.values()], 'shutdown');
    },
  };
}
