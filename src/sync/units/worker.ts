// Executes unit jobs in this process: claims a unit, keeps its lease alive, stops it on a cancel.
import type { Logger } from '../../connectors/types.ts';
import type { Metrics } from '../../metrics.ts';
import { CollectionRepo } from '../../store/collections.ts';
import { RunRepo } from '../../store/runs.ts';
import { UnitJobRepo } from '../../store/unit-jobs.ts';
import { unitJobId } from '../jobs/registry.ts';
import { afterSuccess, RunStopped, type RunnerDeps } from '../runner.ts';
import { executeUnit, type UnitOutcome } from './execute.ts';

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
  /** After a run ended through this process's fan-in: its collection's next run becomes a job. */
  scheduleNext(collectionId: string): Promise<void>;
}

export interface UnitWorker {
  run(runId: string, unitKey: string, signal?: AbortSignal): Promise<UnitOutcome | { status: 'not_claimed' }>;
  /** Unit job ids this process may take now: queued units of running runs, expired leases, dead owners. */
  claimable(limit: number): Promise<string[]>;
  /** Stops this process's units of these runs (a cancel committed) and waits for them. */
  stopRuns(runIds: string[], why: 'cancelled' | 'shutdown'): Promise<void>;
  stopAll(): Promise<void>;
}

export function createUnitWorker(deps: UnitWorkerDeps): UnitWorker {
  const db = deps.runner.db;
  const jobs = new UnitJobRepo(db);
  const runs = new RunRepo(db);
  const clock = deps.runner.clock;
  const local = new Map<string, { runId: string; controller: AbortController; done: Promise<unknown> }>();

  const run: UnitWorker['run'] = async (runId, unitKey, signal) => {
    const row = await jobs.get(runId, unitKey);
    const current = await runs.get(runId);
    if (!row || !current || current.status !== 'running' || (row.status !== 'queued' && row.status !== 'running'))
      return { status: 'not_claimed' };
    const dead = row.status === 'running' && deps.isDeadOwner(row.lease_owner) ? row.lease_owner! : undefined;
    const at = clock();
    const job = await jobs.claim(
      runId,
      unitKey,
      deps.owner,
      at.toISOString(),
      new Date(at.getTime() + deps.leaseMs).toISOString(),
      dead,
    );
    if (!job) return { status: 'not_claimed' };
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(new RunStopped('shutdown'));
    signal?.addEventListener('abort', onOuterAbort, { once: true });
    // Progress, not the heartbeat, is what keeps a unit alive: a unit whose requests all hang still heartbeats.
    let lastProgress = at.getTime();
    const onProgress = () => {
      lastProgress = clock().getTime();
    };
    const watchdog = setInterval(
      () => {
        if (controller.signal.aborted || clock().getTime() - lastProgress < deps.stallMs) return;
        deps.metrics?.unitStalled(current.collection_id);
        deps.log.warn(
          { run_id: runId, unit: unitKey, stall_seconds: deps.stallMs / 1000, attempt: job.attempt },
          'unit made no progress; stopped to be retried',
        );
        controller.abort(new RunStopped('stalled'));
      },
      Math.max(20, Math.min(deps.heartbeatMs, deps.stallMs / 4)),
    );
    const heartbeat = setInterval(() => {
      const now = clock();
      jobs
        .heartbeat(
          runId,
          unitKey,
          deps.owner,
          now.toISOString(),
          new Date(now.getTime() + deps.leaseMs).toISOString(),
          new Date(lastProgress).toISOString(),
        )
        .then(async (ok) => {
          if (ok || controller.signal.aborted) return;
          const latest = await jobs.get(runId, unitKey);
          controller.abort(new RunStopped(latest?.status === 'cancelled' ? 'cancelled' : 'lease_lost'));
        })
        .catch((err: unknown) => deps.log.warn({ err, run_id: runId, unit: unitKey }, 'unit heartbeat failed'));
    }, deps.heartbeatMs);
    const id = unitJobId(runId, unitKey);
    const done = executeUnit(deps.runner, current, job, deps.owner, controller.signal, onProgress);
    local.set(id, { runId, controller, done });
    try {
      const outcome = await done;
      if (outcome.status === 'interrupted') await jobs.releaseLease(runId, unitKey, deps.owner, clock().toISOString());
      const ran = outcome.status === 'done' || outcome.status === 'failed' ? outcome.ran : undefined;
      if (ran) {
        deps.metrics?.runFinished(current.collection_id, ran);
        deps.log.info({ run_id: runId, outcome: ran }, 'run finished');
        if (ran === 'succeeded' || ran === 'completed_with_errors') {
          const collection = await new CollectionRepo(db).getById(current.collection_id);
          if (collection) await afterSuccess(deps.runner, collection, deps.log);
        }
        await deps.scheduleNext(current.collection_id);
      }
      return outcome;
    } finally {
      clearInterval(heartbeat);
      clearInterval(watchdog);
      signal?.removeEventListener('abort', onOuterAbort);
      local.delete(id);
    }
  };

  const stopRuns = async (runIds: string[], why: 'cancelled' | 'shutdown') => {
    const mine = [...local.values()].filter((e) => runIds.includes(e.runId));
    for (const e of mine) e.controller.abort(new RunStopped(why));
    await Promise.all(mine.map((e) => e.done.catch(() => undefined)));
  };

  return {
    run,
    async claimable(limit) {
      const rows = await jobs.claimable(clock().toISOString(), limit);
      const orphaned = deps.ownerPrefix
        ? (await jobs.runningOwnedBy(deps.ownerPrefix)).filter((r) => deps.isDeadOwner(r.lease_owner))
        : [];
      return [...new Set([...orphaned, ...rows].map((r) => unitJobId(r.run_id, r.unit_key)))];
    },
    stopRuns,
    stopAll: () => stopRuns([...new Set([...local.values()].map((e) => e.runId))], 'shutdown'),
  };
}
