// A unit job: one custodian's share of a fanned-out run, executed by whichever worker claimed it.
import { CollectionRepo } from '../../store/collections.ts';
import { withTransaction } from '../../store/repos.ts';
import type { RunRow } from '../../store/runs.ts';
import { UnitJobRepo, type UnitJobRow } from '../../store/unit-jobs.ts';
import { UnitClaimRepo } from '../../store/unit-claims.ts';
import { unitCountersOf } from '../../store/run-counters.ts';
import { emptyTally } from '../../store/units.ts';
import { collectInto } from './collect-into.ts';
import { progressData } from '../runs/tally.ts';
import { childLog } from '../providers/provider-session.ts';
import { FencedOutError, MAX_STALLED_ATTEMPTS, RunStopped, triedAgainAfterOverload, unitFence } from './lease.ts';
import { needsUserAction } from '../../domain/run-failures.ts';
import type { RunnerDeps } from '../deps.ts';
import { openUnitContext } from './unit-context.ts';
import { ItemWriter } from './item-writer.ts';
import { createRunMemos, type RunMemo } from './unit-memo.ts';
import { fanIn, type FanInStatus } from './fan-in.ts';
import { afterSuccess } from '../runs/run-end.ts';
import { SharedBudget } from '../../provider/shared-budget.ts';
import type { UnitLoad } from './unit-load.ts';

export type UnitOutcome =
  /** `ran`: how the run ended when this unit was its last one (fan-in) */
  | { status: 'done' | 'failed'; last: boolean; ran?: FanInStatus }
  | { status: 'cancelled' | 'interrupted'; last: false };

/** Executes a claimed unit to its end; the caller holds the unit's lease and heartbeats it. */
export async function executeUnit(
  deps: RunnerDeps,
  run: RunRow,
  job: UnitJobRow,
  owner: string,
  signal: AbortSignal,
  onProgress?: () => void,
  memo: RunMemo = createRunMemos(deps, 1)(run.id),
  load?: UnitLoad,
): Promise<UnitOutcome> {
  const key = job.unit_key;
  const log = childLog(deps.log, { run_id: run.id, collection_id: run.collection_id, unit: key });
  const jobs = new UnitJobRepo(deps.db);
  const claims = new UnitClaimRepo(deps.db);
  let session: ItemWriter | undefined;
  try {
    const collection = await new CollectionRepo(deps.db).getHead(run.collection_id);
    if (!collection || !collection.has_filters)
      throw new Error('the collection was deleted or its filters removed during the run');
    const checkpoint = job.checkpoint ? (JSON.parse(job.checkpoint) as { state: unknown }).state : null;
    const plan = await memo.plan();
    const continuing = [key, ...(await claims.claimedUnits(run.id, key))];
    const mine = new Set(continuing);
    const unit = await openUnitContext(
      deps,
      run,
      collection,
      {
        owner,
        counters: unitCountersOf(job),
        checkpoint,
        scope: [key],
        // This unit's pieces on the retry list; pieces of a unit the run does not have (a channel) go to its first unit.
        retries: (r) => r.unit_key === key || (!plan.keys.has(r.unit_key) && key === plan.first),
        ...(key === plan.first ? {} : { retryUnits: [key] }),
        continues: (u) => mine.has(u),
        continuing,
        filters: () => memo.filters(),
        foreign: (u) => u !== key && plan.keys.has(u),
        fence: unitFence(run.id, key, owner),
        onProgress,
        units: plan.units,
        claim: async (piece) => claims.claimPiece(run.id, piece, key),
      },
      signal,
      log,
    );
    session = unit.session;
    if (load && unit.ctx.http.budget instanceof SharedBudget) load.budget = unit.ctx.http.budget;
    log.info({ attempt: job.attempt, resumed: checkpoint !== null }, 'unit started');
    await collectInto({ ...unit, signal, db: deps.db, load }, unit.retries);
    return await end(deps, run, key, owner, memo, 'done');
  } catch (err) {
    await session?.discardPending();
    const stop = signal.aborted && signal.reason instanceof RunStopped ? signal.reason.why : undefined;
    const cancelled = (): UnitOutcome => {
      log.info({}, 'unit stopped: cancelled');
      return { status: 'cancelled', last: false };
    };
    if (stop === 'cancelled') return cancelled();
    if (stop === 'stalled' && job.attempt >= MAX_STALLED_ATTEMPTS) {
      const reason = `the unit made no progress for UNIT_STALL_SECONDS on each of its ${job.attempt} attempts (no provider answer, item or checkpoint)`;
      log.warn({ attempt: job.attempt }, 'unit failed: no progress');
      return end(deps, run, key, owner, memo, 'failed', { error: reason, needsAction: false });
    }
    if (stop || err instanceof FencedOutError) {
      const current = await jobs.get(run.id, key).catch(() => undefined);
      if (current?.status === 'cancelled') return cancelled();
      log.info({ why: stop ?? 'fenced' }, 'unit interrupted; it resumes from its last checkpoint');
      return { status: 'interrupted', last: false };
    }
    const reason = err instanceof Error ? err.message.slice(0, 1000) : String(err);
    if (triedAgainAfterOverload(err, job.attempt)) {
      log.warn(
        { err: reason, attempt: job.attempt },
        'unit interrupted: the database is overloaded; it is tried again',
      );
      return { status: 'interrupted', last: false };
    }
    log.warn({ err: reason }, 'unit failed');
    return end(deps, run, key, owner, memo, 'failed', { error: reason, needsAction: needsUserAction(err) });
  }
}

/**
 * Ends the unit in one transaction; the unit that ends last also ends the run (fan-in) in it. A failed unit
 * counts as one failed piece of its custodian, with its reason in the reconciliation and the run's errors.
 */
async function end(
  deps: RunnerDeps,
  run: RunRow,
  key: string,
  owner: string,
  memo: RunMemo,
  status: 'done' | 'failed',
  failure?: { error: string; needsAction: boolean },
): Promise<UnitOutcome> {
  const at = deps.clock().toISOString();
  // Read before the transaction (SQLite has one connection): the interval the run's last unit plans the next run at.
  const rerun = await memo.rerunMinutes();
  const result = await withTransaction(deps.db, async (tx, trx) => {
    const jobs = new UnitJobRepo(trx);
    const ended = await jobs.finish(run.id, key, owner, status, at, failure);
    if (!ended.finished) return { ...ended, ran: undefined };
    if (failure) {
      const job = await jobs.get(run.id, key);
      await tx.runErrors.add([
        {
          run_id: run.id,
          collection_id: run.collection_id,
          source_id: key,
          kind: 'custodian',
          reason: failure.error,
          at,
        },
      ]);
      const unit = (await tx.units.listOf(run.id, [key])).at(0);
      const failedUnit = {
        ...emptyTally(),
        name: null,
        ...unit,
        key,
        kind: job?.kind ?? 'custodian',
        email: unit?.email ?? job?.email ?? null,
        status: 'failed',
        listed: (unit?.listed ?? 0) + 1,
        failed: (unit?.failed ?? 0) + 1,
      };
      await tx.units.save(run.id, run.collection_id, [failedUnit], at);
      // the unit's last progress says it ended, with the numbers its reconciliation entry has
      await tx.events.append({
        accountId: run.account_id,
        collectionId: run.collection_id,
        runId: run.id,
        type: 'run.progress',
        data: progressData(run.id, failedUnit),
        at,
      });
      await tx.units.addExceptions([
        {
          run_id: run.id,
          collection_id: run.collection_id,
          unit_key: key,
          source_id: key,
          kind: 'custodian',
          name: job?.email ?? key,
          outcome: 'failed',
          reason: failure.error.slice(0, 2000),
          at,
        },
      ]);
    }
    return { ...ended, ran: ended.last ? await fanIn(tx, trx, deps, run.id, rerun) : undefined };
  });
  if (!result.finished) return { status: 'interrupted', last: false };
  if (result.ran === 'succeeded' || result.ran === 'completed_with_errors') {
    const collection = await new CollectionRepo(deps.db).getById(run.collection_id);
    if (collection) await afterSuccess(deps, collection, deps.log);
  }
  return { status, last: result.last, ran: result.ran };
}
