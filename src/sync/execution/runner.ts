// Executes a claimed run: every run is a planned run. With the run's context (run-context.ts), a connector with a
// planner (Connector.units) fans the run out into unit jobs (plan.ts); a connector without one has a single unit,
// the run itself, collected here in place on the run's lease. A run that does not fan out ends here, through
// runs/run-end.ts; a fanned-out one ends with its last unit job (unit-job.ts, fan-in.ts).
import type { Logger } from '../../connectors/types.ts';
import { CollectionRepo, type CollectionRow } from '../../store/collections.ts';
import { countersOf, RunRepo, type RunRow } from '../../store/runs.ts';
import { withTransaction } from '../../store/repos.ts';
import { rerunMinutes } from '../schedule/rerun.ts';
import { collectInto } from './collect-into.ts';
import { countsOf, isBalanced, reportUnreached } from '../runs/tally.ts';
import { childLog } from '../providers/provider-session.ts';
import { planUnits } from './plan.ts';
import type { RunnerDeps } from '../deps.ts';
import { checkCollection, openRunContext, type RunCollection, type RunContext } from './run-context.ts';
import { runFiltersOf } from './collect-parts.ts';
import { FencedOutError, MAX_STALLED_ATTEMPTS, RunStopped, triedAgainAfterOverload } from './lease.ts';
import { afterSuccess, endRunAsDecided, finishFailed, moveCollection } from '../runs/run-end.ts';

export type RunOutcome =
  | { status: 'succeeded' | 'completed_with_errors' | 'failed' | 'error'; error: string | null }
  /** cancelled, or stopped without finishing (shutdown, lost lease): another attempt resumes it */
  | { status: 'cancelled' | 'interrupted' | 'not_claimed'; error: string | null }
  /** split into unit jobs (unit-job.ts): the unit that ends last finishes the run */
  | { status: 'fanned_out'; error: null };

/** The run's lease, held by the caller (sync/execution/lease.ts): aborted when the run must stop; told of progress. */
export interface RunLease {
  signal: AbortSignal;
  onProgress?: () => void;
}

/** Executes a claimed run to its end, or to its fan-out. The caller holds the lease and heartbeats it. */
export async function executeRun(deps: RunnerDeps, run: RunRow, owner: string, lease: RunLease): Promise<RunOutcome> {
  const { signal } = lease;
  const collections = new CollectionRepo(deps.db);
  const runs = new RunRepo(deps.db);
  const now = () => deps.clock().toISOString();
  const log = childLog(deps.log, { run_id: run.id, collection_id: run.collection_id });
  let unit: RunContext | undefined;
  let collection: CollectionRow | undefined;
  try {
    collection = await collections.getById(run.collection_id);
    if (!collection) {
      await runs.finish(run.id, owner, 'cancelled', now(), 'the collection was deleted');
      return { status: 'cancelled', error: 'the collection was deleted' };
    }
    if (collection.sync_status !== 'syncing') await moveCollection(collections, collection, 'start');
    // a run resumed after a crash or a lost lease keeps the filters it started with (a PATCH since is for the next)
    const { id: collectionId, sync_filters: saved } = collection;
    const at = await checkCollection(deps, { ...collection, has_filters: saved !== null }, () =>
      runFiltersOf(deps, collectionId, run.sync_filters ?? saved!),
    );
    const sameFilters = run.filters_fingerprint === at.fingerprint;
    const resumed = sameFilters && run.checkpoint !== null;
    if (run.checkpoint && !sameFilters) log.info({}, 'filters changed since the last checkpoint: planning starts over');
    // Items this run sees are stamped with this id; a resumed checkpoint (a crash, or a retry of a failed run)
    // continues the marks made before it, so a complete listing spanning attempts misses nothing.
    const listingRunId = resumed ? (run.listing_run_id ?? run.id) : run.id;
    const scope = run.scope === null ? null : (JSON.parse(run.scope) as string[]);
    const counters = countersOf(run);
    const owned = await runs.saveProgress(run.id, owner, now(), {
      counters,
      filtersFingerprint: at.fingerprint,
      syncFilters: at.filtersText,
      listingRunId,
      ...(!sameFilters && { checkpoint: null, pendingCursors: null }),
    });
    if (!owned) throw new FencedOutError('the run is no longer ours');
    unit = await openRunContext(
      deps,
      run,
      at,
      {
        owner,
        listingRunId,
        counters,
        checkpoint: resumed ? (JSON.parse(run.checkpoint!) as { state: unknown }).state : null,
        scope,
        onProgress: lease.onProgress,
      },
      signal,
      log,
    );
    log.info({ resumed, attempt: run.attempt }, 'run started');
    const { session, ledger, ctx } = unit;
    const planned = await planUnits({ connector: at.connector, ctx, session, ledger, run, owner, collectionId, now });
    if (planned === 'fanned_out') return { status: 'fanned_out', error: null };
    let unreached = 0;
    if (planned === 'in_place')
      await collectInto({ session, ledger, connector: at.connector, ctx, signal }, unit.retries);
    else {
      if (signal.aborted) throw signal.reason;
      await session.flush({ final: true });
      // no unit at all (no owner selected, say): what the filters name one by one was reached by none
      const missed = scope === null ? (at.connector.units?.unreached?.(at.filters, []) ?? []) : [];
      if (missed.length) await withTransaction(deps.db, (tx) => reportUnreached(tx, run, missed, now()));
      unreached = missed.length;
    }
    return await end(deps, run, owner, collection, at, unit, unreached, log);
  } catch (err) {
    await unit?.session.discardPending();
    return fail(deps, run, owner, collection, err, signal, log);
  }
}

/** The run's single unit (or its empty plan) is done: the run ends as its reconciliation decides. */
async function end(
  deps: RunnerDeps,
  run: RunRow,
  owner: string,
  collection: CollectionRow,
  at: RunCollection,
  unit: RunContext,
  unreached: number,
  log: Logger,
): Promise<RunOutcome> {
  const { session, ledger, ctx } = unit;
  const totals = ledger.totals();
  // The invariant every reconciliation must satisfy; a run that breaks it is a defect worth shouting about.
  const unbalanced = [...ledger.units.values()].filter((u) => !isBalanced(countsOf(u))).map((u) => u.key);
  if (unbalanced.length > 0 || !isBalanced(countsOf(totals)))
    log.error({ units: unbalanced }, 'run reconciliation does not balance');
  const c = session.counters;
  const tally = { ...c, reconciledFailures: totals.failed + unreached, failedUnits: 0 };
  const rerun = rerunMinutes(at.connector, ctx.grantInfo, at.filters, deps.intervalMinutes);
  // One transaction: whoever sees the run finished sees the collection `synced` (and its next run planned).
  const ended = await withTransaction(deps.db, async (tx) => {
    // Cursors are kept only when the run completes: a failed run must not skip what it never collected.
    const cursors = await tx.runs.pendingCursors(run.id);
    const r = { fingerprint: at.fingerprint, cursors, rerunMinutes: rerun };
    const e = await endRunAsDecided(tx, deps, run, owner, collection, tally, r);
    if (!e) throw new FencedOutError('the run is no longer ours');
    return e;
  });
  if (ended.status === 'failed' || ended.status === 'error') {
    log.warn({ status: ended.status, reason: ended.reason }, 'run did not succeed');
    return { status: ended.status, error: ended.reason };
  }
  await afterSuccess(deps, collection, log);
  log.info({ outcome: ended.status }, 'run finished');
  return { status: ended.status, error: null };
}

async function fail(
  deps: RunnerDeps,
  run: RunRow,
  owner: string,
  collection: CollectionRow | undefined,
  err: unknown,
  signal: AbortSignal,
  log: Logger,
): Promise<RunOutcome> {
  const stop = signal.aborted && signal.reason instanceof RunStopped ? signal.reason.why : undefined;
  if (stop === 'cancelled') {
    log.info({}, 'run stopped: cancelled');
    return { status: 'cancelled', error: 'cancelled' };
  }
  let cause = err;
  if (stop === 'stalled' && run.attempt >= MAX_STALLED_ATTEMPTS) {
    // Planning, or the run's own unit, made no progress on each attempt: the run ends instead of stalling again.
    log.warn({ attempt: run.attempt }, 'run failed: no progress');
    cause = new Error(
      `the run made no progress for UNIT_STALL_SECONDS on each of its ${run.attempt} attempts (no provider answer, item or checkpoint)`,
    );
  } else if (stop || err instanceof FencedOutError) {
    const runs = new RunRepo(deps.db);
    // A cancel commits before it aborts this run's signal: a write fenced out in between met the cancellation.
    if (!stop && (await runs.get(run.id).catch(() => undefined))?.status === 'cancelled') {
      log.info({}, 'run stopped: cancelled');
      return { status: 'cancelled', error: 'cancelled' };
    }
    log.info({ why: stop ?? 'fenced' }, 'run interrupted; it resumes from its last checkpoint');
    return { status: 'interrupted', error: null };
  } else if (triedAgainAfterOverload(err, run.attempt)) {
    log.warn({ attempt: run.attempt }, 'run interrupted: the database is overloaded; it is tried again');
    return { status: 'interrupted', error: null };
  }
  const finished = await withTransaction(deps.db, (tx) => finishFailed(tx, deps, run, owner, collection, cause));
  if (!finished) return { status: 'interrupted', error: null };
  log.warn({ status: finished.status, reason: finished.reason }, 'run did not succeed');
  return { status: finished.status, error: finished.reason };
}
