// Fan-in: the unit that ends last ends the run, with the outcome rules of every run (domain/run-outcome.ts).
import type { Repos } from '../../store/repos.ts';
import type { Executor } from '../../store/transaction.ts';
import { UnitJobRepo, unitsOwner } from '../../store/unit-jobs.ts';
import { UnitClaimRepo } from '../../store/unit-claims.ts';
import { foldUnitCounters } from '../../store/run-counters.ts';
import { filtersFingerprint } from '../../provider/fingerprint.ts';
import { reportUnreached } from '../runs/tally.ts';
import { decideRunOutcome, type RunTally } from '../../domain/run-outcome.ts';
import { endRunAsDecided } from '../runs/run-end.ts';
import type { RunnerDeps } from '../deps.ts';

export type FanInStatus = 'succeeded' | 'completed_with_errors' | 'failed' | 'error' | 'cancelled';

/**
 * Inside the transaction that ended the run's last unit: merges the units' cursors, decides the outcome (`error`
 * when a unit needs a person, `failed` when nothing could be collected, `completed_with_errors` when a piece or a
 * unit failed, else `succeeded`), ends the run and moves its collection. Exactly once per run: the caller's
 * transaction holds the run row's lock and saw no unit left open.
 */
export async function fanIn(
  tx: Repos,
  trx: Executor,
  deps: RunnerDeps,
  runId: string,
  rerunMinutes?: number,
): Promise<FanInStatus | undefined> {
  const running = await tx.runs.status(runId);
  if (running !== 'running') return undefined;
  // the run ends in this transaction: its units' counters go to its row, once
  await foldUnitCounters(trx, runId);
  const run = (await tx.runs.get(runId))!;
  const owner = unitsOwner(runId);
  const at = deps.clock().toISOString();
  const collection = await tx.collections.getById(run.collection_id);
  const connector = collection ? deps.connectors.get(collection.type) : undefined;
  if (!collection || collection.sync_filters === null || !connector?.units) {
    await tx.runs.finish(runId, owner, 'cancelled', at, 'the collection was deleted');
    return 'cancelled';
  }
  const jobs = await new UnitJobRepo(trx).list(runId);
  const needsAction = jobs.find((j) => j.needs_action === 1);
  const tally: RunTally = {
    collected: Number(run.collected),
    unchanged: Number(run.unchanged),
    skipped: Number(run.skipped),
    failed: Number(run.failed),
    reconciledFailures: 0,
    failedUnits: jobs.filter((j) => j.status === 'failed').length,
    ...(needsAction && { needsAction: needsAction.error ?? 'a person must act' }),
  };
  const filters = JSON.parse(run.sync_filters ?? collection.sync_filters) as unknown;
  // A targeted run reaches only some custodians: what it did not reach is no failure of its own. A run that fails
  // as a whole reports none either.
  const completes = ['succeeded', 'completed_with_errors'].includes(decideRunOutcome(tally).status);
  if (completes && run.scope === null && connector.units.unreached) {
    await reportUnreached(tx, run, connector.units.unreached(filters, await new UnitClaimRepo(trx).claims(runId)), at);
  }
  tally.reconciledFailures = (await tx.units.list(runId)).reduce((n, u) => n + Number(u.failed), 0);
  const fingerprint = filtersFingerprint(filters);
  const stored = await tx.cursors.get(collection.id);
  const previous = stored && stored.fingerprint === fingerprint ? stored.value : null;
  const parts = jobs.map((j) => ({
    unit: j.unit_key,
    cursors: j.status === 'done' && j.pending_cursors ? (JSON.parse(j.pending_cursors) as unknown) : null,
  }));
  const cursors = JSON.stringify(connector.units.mergeCursors(previous, parts, run.scope !== null));
  return (await endRunAsDecided(tx, deps, run, owner, collection, tally, { fingerprint, cursors, rerunMinutes }))
    ?.status;
}
