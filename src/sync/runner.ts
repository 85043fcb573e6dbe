import type { BlobStore } from '../blobs/types.ts';
import type { DocumentReader } from '../search/index.ts';
import {
  GrantRevokedError,
  NeedsUserActionError,
  type CollectContext,
  type Connector,
  type Logger,
} from '../connectors/types.ts';
import { nextStatus, type SyncEvent, type SyncStatus } from '../domain/sync-state.ts';
import { CollectionRepo, type CollectionRow } from '../store/collections.ts';
import type { Database } from '../store/db.ts';
import { CursorRepo } from '../store/items.ts';
import { countersOf, RunRepo, type RunRow } from '../store/runs.ts';
import { withTransaction, type Repos } from '../store/repos.ts';
import { WalletRepo } from '../store/wallets.ts';
import { CredentialsMissingError } from './credentials.ts';
import { filtersFingerprint } from '../provider/fingerprint.ts';
import { purgeUnheldTombstones } from './purge.ts';
import { rerunMinutes } from './rerun.ts';
import { ProviderError } from '../provider/provider-http.ts';
import { collectInto } from './collect-into.ts';
import { UnitLedger } from './ledger.ts';
import { plainReason } from '../domain/plain-reason.ts';
import { countsOf, isBalanced, reportUnreached } from './reconciliation.ts';
import { childLog, type ProviderSessions } from './provider-session.ts';
import { FencedOutError, RunSession } from './session.ts';
import { UnitRepo } from '../store/units.ts';
import { userFacingMessage } from './user-message.ts';
import { planUnits } from './units/plan.ts';

export interface RetryPolicy {
  /** Wait before the first automatic retry of a failed collection; doubles each time. */
  baseMs: number;
  maxMs: number;
  /** After this many failed runs in a row the collection goes to `error` (needs a person). */
  maxFailures: number;
}

export interface RunnerDeps {
  db: Database;
  blobs: BlobStore;
  documents: DocumentReader;
  connectors: { get(type: string): Connector | undefined };
  sessions: ProviderSessions;
  log: Logger;
  clock: () => Date;
  isHeld(collectionId: string): Promise<boolean>;
  /** An injected hold check (SyncEngineDeps.isHeld), OR-ed with the table inside each flush (session.ts). */
  heldOverride?(collectionId: string): Promise<boolean>;
  intervalMinutes: number;
  retry: RetryPolicy;
  /** Fan runs out into one job per unit when the connector can (Connector.units). */
  units?: boolean;
}

export type RunOutcome =
  | { status: 'succeeded' | 'completed_with_errors' | 'failed' | 'error'; error: string | null }
  /** cancelled, or stopped without finishing (shutdown, lost lease): another attempt resumes it */
  | { status: 'cancelled' | 'interrupted' | 'not_claimed'; error: string | null }
  /** split into unit jobs (sync/units): the unit that ends last finishes the run */
  | { status: 'fanned_out'; error: null };

/** Reasons a runner's signal is aborted with. */
export class RunStopped extends Error {
  constructor(readonly why: 'cancelled' | 'shutdown' | 'lease_lost' | 'stalled') {
    super(`run stopped: ${why}`);
    this.name = 'RunStopped';
  }
}

/** Executes a claimed run to its end. The caller holds the lease and heartbeats it. */
export async function executeRun(
  deps: RunnerDeps,
  run: RunRow,
  owner: string,
  signal: AbortSignal,
): Promise<RunOutcome> {
  const collections = new CollectionRepo(deps.db);
  const runs = new RunRepo(deps.db);
  const now = () => deps.clock().toISOString();
  const log = childLog(deps.log, { run_id: run.id, collection_id: run.collection_id });
  let session: RunSession | undefined;
  let collection: CollectionRow | undefined;
  try {
    collection = await collections.getById(run.collection_id);
    if (!collection) {
      await runs.finish(run.id, owner, 'cancelled', now(), 'the collection was deleted');
      return { status: 'cancelled', error: 'the collection was deleted' };
    }
    if (collection.sync_status !== 'syncing') await moveCollection(collections, collection, 'start');
    const connector = deps.connectors.get(collection.type);
    if (!connector)
      throw new NeedsUserActionError(`no connector for collection type "${collection.type}" on this server`);
    const wallet = await new WalletRepo(deps.db).getById(collection.wallet_id);
    if (!wallet?.sealed_grant)
      throw new NeedsUserActionError('re-pair credentials: the wallet has no paired credentials');
    if (collection.sync_filters === null) throw new NeedsUserActionError('no sync_filters saved: PATCH the collection');

    // a run resumed after a crash or a lost lease keeps the filters it started with (a PATCH since is for the next)
    const filtersText = run.sync_filters ?? collection.sync_filters;
    const filters = JSON.parse(filtersText) as unknown;
    const fingerprint = filtersFingerprint(filters);
    const sameFilters = run.filters_fingerprint === fingerprint;
    const resumed = sameFilters && run.checkpoint !== null;
    const checkpoint = resumed ? (JSON.parse(run.checkpoint!) as { state: unknown }).state : null;
    if (run.checkpoint && !sameFilters) log.info({}, 'filters changed since the last checkpoint: planning starts over');
    const stored = await new CursorRepo(deps.db).get(collection.id);
    const cursors = stored && stored.fingerprint === fingerprint ? stored.value : null;

    // Items this run sees are stamped with this id; a resumed checkpoint (a crash, or a retry of a failed run)
    // continues the marks made before it, so a complete listing spanning attempts misses nothing.
    const listingRunId = resumed ? (run.listing_run_id ?? run.id) : run.id;
    const unitRepo = new UnitRepo(deps.db);
    const scope = run.scope === null ? null : (JSON.parse(run.scope) as string[]);
    // A targeted (event) run retries the failed pieces of its own units only.
    const retries = (await unitRepo.retries(collection.id)).filter((r) => scope === null || scope.includes(r.unit_key));
    const ledger = new UnitLedger(
      { runId: run.id, collectionId: collection.id, accountId: collection.account_id },
      deps.clock,
      await unitRepo.list(run.id),
      new Set(retries.map((r) => `${r.kind}\u0000${r.source_id}`)),
    );
    session = new RunSession(deps, {
      ledger,
      runId: run.id,
      listingRunId,
      owner,
      collectionId: collection.id,
      accountId: collection.account_id,
      typeSync: collection.type_sync,
      type: collection.type,
      kinds: connector.kinds,
      counters: countersOf(run),
      signal,
    });
    const owned = await runs.saveProgress(run.id, owner, now(), {
      counters: session.counters,
      filtersFingerprint: fingerprint,
      syncFilters: filtersText,
      listingRunId,
      ...(!sameFilters && { checkpoint: null, pendingCursors: null }),
    });
    if (!owned) throw new FencedOutError('the run is no longer ours');

    const ctx: CollectContext = {
      ...(await deps.sessions.open(collection, connector, { signal, log, now: deps.clock })),
      collectionId: collection.id,
      filters,
      checkpoint,
      cursors,
      scope,
    };
    log.info({ resumed, attempt: run.attempt }, 'run started');
    const planned =
      deps.units && connector.units
        ? await planUnits({ connector, ctx, session, ledger, run, owner, collectionId: collection.id, now })
        : 'unsplit';
    if (planned === 'fanned_out') return { status: 'fanned_out', error: null };
    let unreached = 0;
    if (planned === 'unsplit') await collectInto({ session, ledger, connector, ctx, signal }, retries);
    else {
      if (signal.aborted) throw signal.reason;
      await session.flush({ final: true });
      // no unit at all (no owner selected, say): what the filters name one by one was reached by none
      const missed = scope === null ? (connector.units?.unreached?.(filters, []) ?? []) : [];
      if (missed.length) await withTransaction(deps.db, (tx) => reportUnreached(tx, run, missed, now()));
      unreached = missed.length;
    }
    const totals = ledger.totals();
    // The invariant every reconciliation must satisfy; a run that breaks it is a defect worth shouting about.
    const unbalanced = [...ledger.units.values()].filter((u) => !isBalanced(countsOf(u))).map((u) => u.key);
    if (unbalanced.length > 0 || !isBalanced(countsOf(totals)))
      log.error({ units: unbalanced }, 'run reconciliation does not balance');
    const failed = session.counters.failed;
    if (failed > 0 && session.counters.collected + session.counters.unchanged + session.counters.skipped === 0) {
      throw new NothingCollectedError(
        `nothing could be collected: ${failed} selected ${failed === 1 ? 'piece' : 'pieces'} failed; see the run's reconciliation`,
      );
    }
    const outcome = failed > 0 || totals.failed + unreached > 0 ? 'completed_with_errors' : 'succeeded';
    const rerun = rerunMinutes(connector, ctx.grantInfo, filters, deps.intervalMinutes);
    return await succeed(
      deps,
      run,
      owner,
      collection,
      fingerprint,
      log,
      outcome,
      Math.max(failed, totals.failed + unreached),
      rerun,
    );
  } catch (err) {
    await session?.discardPending();
    return fail(deps, run, owner, collection, err, signal, log);
  }
}

/** Every selected piece failed: the run ends `failed` (retried with backoff) rather than `completed_with_errors`. */
export class NothingCollectedError extends Error {
  override name = 'NothingCollectedError';
}

/** The status_reason of a collection whose last run completed with errors. */
export function incompleteReason(collectionId: string, runId: string, failed: number): string {
  return (
    `${failed} ${failed === 1 ? 'item' : 'items'} could not be collected in the last run; they are retried by the following runs. ` +
    `See GET /v1/collections/${collectionId}/runs/${runId}/reconciliation for which and why.`
  );
}

async function succeed(
  deps: RunnerDeps,
  run: RunRow,
  owner: string,
  collection: CollectionRow,
  fingerprint: string,
  log: Logger,
  outcome: 'succeeded' | 'completed_with_errors',
  failed: number,
  rerun: number,
): Promise<RunOutcome> {
  // One transaction: whoever sees the run finished sees the collection `synced` (and its next run planned).
  await withTransaction(deps.db, async (tx) => {
    // Cursors are kept only when the run completes: a failed run must not skip what it never collected.
    const pendingCursors = await tx.runs.pendingCursors(run.id);
    if (
      !(await finishSucceeded(tx, deps, run, owner, collection, {
        fingerprint,
        outcome,
        failed,
        cursors: pendingCursors,
        rerunMinutes: rerun,
      }))
    )
      throw new FencedOutError('the run is no longer ours');
  });
  await afterSuccess(deps, collection, log);
  log.info({ outcome }, 'run finished');
  return { status: outcome, error: null };
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
  await collections.transition(
    collection.id,
    'syncing',
    'synced',
    r.outcome === 'succeeded' ? null : incompleteReason(collection.id, run.id, r.failed),
  );
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
  if ((await collections.takeRerunRequest(id)) && ended !== 'error') await collections.transition(id, ended, 'pending');
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
  const runs = new RunRepo(deps.db);
  if (stop || err instanceof FencedOutError) {
    // A cancel commits before it aborts this run's signal: a write fenced out in between met the cancellation.
    if (!stop && (await runs.get(run.id).catch(() => undefined))?.status === 'cancelled') {
      log.info({}, 'run stopped: cancelled');
      return { status: 'cancelled', error: 'cancelled' };
    }
    log.info({ why: stop ?? 'fenced' }, 'run interrupted; it resumes from its last checkpoint');
    return { status: 'interrupted', error: null };
  }
  const finished = await withTransaction(deps.db, (tx) => finishFailed(tx, deps, run, owner, collection, err));
  if (!finished) return { status: 'interrupted', error: null };
  log.warn({ status: finished.status, reason: finished.reason }, 'run did not succeed');
  return { status: finished.status, error: finished.reason };
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
    if (failures >= deps.retry.maxFailures) {
      status = 'error';
      reason = `gave up after ${failures} failed runs in a row: ${reason}`;
    } else {
      const wait = Math.min(deps.retry.maxMs, deps.retry.baseMs * 2 ** (failures - 1));
      retryAt = new Date(deps.clock().getTime() + wait).toISOString();
    }
  }
  const ok = await tx.runs.finish(run.id, owner, status, at, reason);
  if (!ok) return undefined;
  await tx.runs.addErrors([
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

async function moveCollection(
  collections: CollectionRepo,
  c: CollectionRow,
  event: SyncEvent,
  reason: string | null = null,
) {
  let from = c.sync_status as SyncStatus;
  // A run that ends must leave `syncing`; pass through it when the collection is still `pending`.
  if (event !== 'start' && from === 'pending' && (await collections.transition(c.id, 'pending', 'syncing')))
    from = 'syncing';
  const to = nextStatus(from, event);
  if (to) await collections.transition(c.id, from, to, reason);
}

export function needsUserAction(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof NeedsUserActionError || e instanceof CredentialsMissingError) return true;
    if (e instanceof ProviderError && e.code === 'auth_rejected') return true;
  }
  return false;
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
