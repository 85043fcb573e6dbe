// How a run ends, written once: the run's own unit collected in place (runner.ts) and the fan-in of a run's unit
// jobs (execution/fan-in.ts) both end it here, as domain/run-outcome.ts decides from what its units left.
import { type Logger } from '../../connectors/types.ts';
import { backoffAfter, decideRunOutcome, type RunTally } from '../../domain/run-outcome.ts';
import { nextStatus, type SyncEvent, type SyncStatus } from '../../domain/sync-state.ts';
import { plainReason } from '../../domain/plain-reason.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import type { CollectionRepo, CollectionRow } from '../../store/collections.ts';
import type { Repos } from '../../store/repos.ts';
import type { RunRow } from '../../store/runs.ts';
import { purgeUnheldTombstones } from '../deletion/purge.ts';
import type { RunnerDeps } from '../deps.ts';
import { userFacingMessage } from '../providers/user-message.ts';
import {
  GrantRevokedError,
  NeedsUserActionError,
  needsUserAction,
  NothingCollectedError,
} from '../../domain/run-failures.ts';

export type EndedStatus = 'succeeded' | 'completed_with_errors' | 'failed' | 'error';

/**
 * Ends the run as decideRunOutcome says from `tally`, inside the caller's transaction: `error` when a unit needs a
 * person, `failed` (with backoff) when nothing could be collected, else `completed_with_errors` or `succeeded`
 * keeping `cursors`. Undefined when the caller no longer owns the run.
 */
export async function endRunAsDecided(
  tx: Repos,
  deps: Pick<RunnerDeps, 'clock' | 'intervalMinutes' | 'retry'>,
  run: RunRow,
  owner: string,
  collection: CollectionRow,
  tally: RunTally,
  r: { fingerprint: string; cursors: string | null; rerunMinutes?: number },
): Promise<{ status: EndedStatus; reason: string | null } | undefined> {
  const verdict = decideRunOutcome(tally);
  if (verdict.status === 'needs_action' || verdict.status === 'nothing_collected') {
    const cause =
      verdict.status === 'needs_action'
        ? new NeedsUserActionError(verdict.reason)
        : new NothingCollectedError(verdict.reason);
    return finishFailed(tx, deps, run, owner, collection, cause);
  }
  const ok = await finishSucceeded(tx, deps, run, owner, collection, {
    ...r,
    outcome: verdict.status,
    failed: verdict.failed,
  });
  return ok ? { status: verdict.status, reason: null } : undefined;
}

/** The status_reason of a collection whose last run completed with errors. */
export function incompleteReason(collectionId: string, runId: string, failed: number): string {
  return (
    `${failed} ${failed === 1 ? 'item' : 'items'} could not be collected in the last run; they are retried by the following runs. ` +
    `See GET /v1/collections/${collectionId}/runs/${runId}/reconciliation for which and why.`
  );
}

/**
 * The run succeeded (or completed with errors): ends it, keeps its cursors and moves the collection to `synced`,
 * inside the caller's transaction. False when the caller no longer owns the run.
 */
export async function finishSucceeded(
  tx: Repos,
  deps: Pick<RunnerDeps, 'clock' | 'intervalMinutes'>,
  run: RunRow,
  owner: string,
  collection: CollectionRow,
  r: {
    fingerprint: string;
    outcome: 'succeeded' | 'completed_with_errors';
    failed: number;
    cursors: string | null;
    rerunMinutes?: number;
  },
): Promise<boolean> {
  const at = deps.clock().toISOString();
  const rerun = collection.type_sync === 'auto' || collection.type_sync === 'arch';
  // A targeted (event) run leaves the scheduled full run where it was: it is the safety net for lost events.
  const targeted = run.scope !== null;
  if (!(await tx.runs.finish(run.id, owner, r.outcome, at, null))) return false;
  if (r.cursors) await tx.cursors.put(collection.id, r.cursors, r.fingerprint, at);
  const collections = tx.collections;
  await collections.transition(collection.id, 'complete', {
    reason: r.outcome === 'succeeded' ? null : incompleteReason(collection.id, run.id, r.failed),
  });
  if (!targeted) {
    await collections.update(collection.id, {
      next_sync_at: rerun
        ? new Date(deps.clock().getTime() + (r.rerunMinutes ?? deps.intervalMinutes) * 60_000).toISOString()
        : null,
    });
  }
  await followUp(collections, collection.id, 'synced');
  return true;
}

/**
 * In the transaction that ends a run: a `sync_status: pending` sent during the run moves the collection on to
 * `pending`, which promises a run (the engine queues it after the commit; the scheduler's repair does if this
 * process stops first). After `error` the request is dropped: a person must act before a run can succeed.
 */
async function followUp(collections: CollectionRepo, id: string, ended: 'synced' | 'failed' | 'error'): Promise<void> {
  if ((await collections.takeRerunRequest(id)) && ended !== 'error')
    await collections.transition(id, 'queue', { from: ended });
}

/** After a success committed: content no hold keeps any more is purged. */
export async function afterSuccess(deps: RunnerDeps, collection: CollectionRow, log: Logger): Promise<void> {
  if (collection.type_sync !== 'arch') {
    // Content tombstoned or superseded while a hold applied that has since been released (a release racing with this run).
    await purgeUnheldTombstones(deps.db, deps.blobs, collection.id, {
      now: () => deps.clock().toISOString(),
      isHeld: deps.isHeld,
    }).catch((err: unknown) => log.warn({ err }, 'purging content no hold keeps any more failed'));
  }
}

/**
 * The run failed (`error` when a person must act, or after too many failures in a row): ends it with its reason
 * and moves the collection, inside the caller's transaction. Undefined when the caller no longer owns the run.
 */
export async function finishFailed(
  tx: Repos,
  deps: Pick<RunnerDeps, 'clock' | 'retry'>,
  run: RunRow,
  owner: string,
  collection: CollectionRow | undefined,
  err: unknown,
): Promise<{ status: 'failed' | 'error'; reason: string } | undefined> {
  const at = deps.clock().toISOString();
  let status: 'failed' | 'error' = needsUserAction(err) ? 'error' : 'failed';
  let reason = describe(err);
  let retryAt: string | null = null;
  if (status === 'failed') {
    const failures = (await tx.runs.consecutiveFailures(run.collection_id)) + 1;
    const backoff = backoffAfter(deps.retry, failures);
    if (backoff.giveUp) {
      status = 'error';
      reason = `gave up after ${failures} failed runs in a row: ${reason}`;
    } else retryAt = new Date(deps.clock().getTime() + backoff.waitMs).toISOString();
  }
  const ok = await tx.runs.finish(run.id, owner, status, at, reason);
  if (!ok) return undefined;
  await tx.runErrors.add([
    {
      run_id: run.id,
      collection_id: run.collection_id,
      source_id: null,
      kind: null,
      reason: `run ${status}: ${reason}`,
      at,
    },
  ]);
  await tx.runs.countError(run.id);
  if (collection) {
    const collections = tx.collections;
    const current = (await collections.getById(collection.id)) ?? collection;
    await moveCollection(collections, current, status === 'error' ? 'error' : 'fail', reason);
    await collections.update(collection.id, { next_sync_at: retryAt });
    await followUp(collections, collection.id, status);
  }
  return { status, reason };
}

export async function moveCollection(
  collections: CollectionRepo,
  c: CollectionRow,
  event: SyncEvent,
  reason: string | null = null,
) {
  let from = c.sync_status as SyncStatus;
  // A run that ends must leave `syncing`; pass through it when the collection is still `pending`.
  if (event !== 'start' && from === 'pending' && (await collections.transition(c.id, 'start', { from: 'pending' })))
    from = 'syncing';
  if (nextStatus(from, event)) await collections.transition(c.id, event, { from, reason });
}

/** The status_reason: what a person must do when one must act, else why the run failed. */
function describe(err: unknown): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof GrantRevokedError)
      return userFacingMessage(`re-pair credentials: the provider refused the stored grant (${e.message})`);
    if (e instanceof NeedsUserActionError) return userFacingMessage(e.message);
    if (e instanceof ProviderError && e.code === 'auth_rejected')
      return userFacingMessage(`re-pair credentials: ${e.message}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return plainReason(message).slice(0, 1000) || 'unknown error';
}
