// The state moves that promise or withdraw a run: each is one transaction with the run rows it concerns, so a crash
// never leaves a status promising a run that does not exist (or a run nobody's status mentions). The engine
// (engine.ts) decides when to make them and hands the runs to the job queue afterwards.
import { DomainError, conflict, notFound } from '../../domain/errors.ts';
import { nextStatus, type SyncEvent, type SyncStatus } from '../../domain/sync-state.ts';
import { CollectionRepo, type CollectionRow } from '../../store/collections.ts';
import type { Database } from '../../store/db.ts';
import { withTransaction } from '../../store/repos.ts';
import { RunRepo, type RunRow, type RunTrigger } from '../../store/runs.ts';
import { UnitJobRepo } from '../../store/unit-jobs.ts';
import { markNotReached } from './tally.ts';

/** Why a run cannot be queued: the collection is gone, its status does not allow it, or it changed meanwhile. */
export class QueueRefused extends Error {
  constructor(
    readonly why: 'gone' | 'status' | 'concurrent_change',
    message: string,
  ) {
    super(message);
    this.name = 'QueueRefused';
  }

  /** As the API's error catalogue answers it: 404, or 409 with the cause's code. */
  toAppError(): DomainError {
    return this.why === 'gone' ? notFound('Collection') : conflict(this.why, this.message);
  }
}

/** Rolls back a status change when another process queued the collection's run first. */
class AlreadyQueued extends Error {
  constructor(readonly run: RunRow) {
    super('a run is already queued');
  }
}

/**
 * Applies `move.event` to the collection (from the status it was read in) and inserts a queued run; `previous`:
 * the failed run a retry resumes from. When another process queued first, its run is returned (`created: false`)
 * and the status is left alone.
 */
export async function queueRun(
  db: Database,
  c: Pick<CollectionRow, 'id' | 'account_id'>,
  move: { from: SyncStatus; event: SyncEvent },
  run: { trigger: RunTrigger; scope: string[] | null; previous?: RunRow; at: string },
): Promise<{ run: RunRow; created: boolean }> {
  const { previous } = run;
  return withTransaction(db, async (tx) => {
    if (!(await tx.collections.lockLive(c.id))) throw new QueueRefused('gone', 'Collection not found.');
    const stays = nextStatus(move.from, move.event) === move.from;
    if (!stays && !(await tx.collections.transition(c.id, move.event, { from: move.from }))) {
      throw new QueueRefused('concurrent_change', 'the collection changed while the run was being queued; try again.');
    }
    const queued = await tx.runs.insertQueued({
      collectionId: c.id,
      accountId: c.account_id,
      trigger: run.trigger,
      at: run.at,
      checkpoint: previous?.checkpoint,
      filtersFingerprint: previous?.filters_fingerprint,
      listingRunId: previous?.checkpoint ? (previous.listing_run_id ?? previous.id) : null,
      scope: run.scope,
    });
    // Someone else queued first: leave the status as it was.
    if (!queued.created) throw new AlreadyQueued(queued.run);
    return queued;
  }).catch((err: unknown) => {
    if (err instanceof AlreadyQueued) return { run: err.run, created: false };
    throw err;
  });
}

/** A start with no run active: a queued run and the collection `syncing` (through `pending` when only filters were saved). */
export async function startRun(
  db: Database,
  c: Pick<CollectionRow, 'id' | 'account_id' | 'sync_status' | 'sync_filters'>,
  at: string,
): Promise<{ run: RunRow; created: boolean }> {
  return withTransaction(db, async (tx) => {
    const txCollections = tx.collections;
    if (!(await txCollections.lockLive(c.id))) throw notFound('Collection');
    let from = c.sync_status as SyncStatus;
    // Filters saved without sync_status=pending leave the collection `created`: start queues, then starts.
    if (
      from === 'created' &&
      c.sync_filters !== null &&
      (await txCollections.transition(c.id, 'queue', { from: 'created' }))
    )
      from = 'pending';
    // `syncing` without an active run is left over from a cancelled run: starting again repairs it.
    if (from !== 'syncing' && !nextStatus(from, 'start'))
      throw conflict('status', `cannot start a collection that is "${from}".`);
    const queued = await tx.runs.insertQueued({ collectionId: c.id, accountId: c.account_id, trigger: 'start', at });
    if (queued.created && from !== 'syncing') await txCollections.transition(c.id, 'start', { from });
    return queued;
  });
}

/**
 * Cancels the collection's active runs and their units (what they did not reach is reconciled `not_reached`) and
 * moves the collection to `error`. Returns the ids of the runs cancelled, for the workers executing them to stop.
 */
export async function cancelRuns(db: Database, collectionId: string, at: string): Promise<string[]> {
  return withTransaction(db, async (tx, trx) => {
    // Locks in the order of a unit's ending: the run row, its unit jobs, then their reconciliation rows (a unit's
    // flush locks its unit job before its reconciliation row). Each unfinished unit's last progress (not_reached)
    // is told before the run's `run.finished`.
    const cancelled = await tx.runs.cancelActive(collectionId, at, async (run) => {
      await new UnitJobRepo(trx).cancelRun(run.id, at);
      await markNotReached(tx, run, at);
    });
    if (cancelled.length > 0) {
      const txCollections = tx.collections;
      const reason = 'the sync was cancelled; start it again';
      // From `syncing`, or `pending` a queued run leaves behind (which the scheduler's repair would queue again).
      await txCollections.transition(collectionId, 'cancel', { reason });
      // A follow-up asked for during the cancelled run is cancelled with it. After the move, which holds the row:
      // a PATCH racing this cancel either set its request before (taken here) or finds the collection in `error`.
      await txCollections.takeRerunRequest(collectionId);
    }
    return cancelled.map((r) => r.id);
  });
}

/**
 * Queueing a run for a collection (the engine's enqueue) and targeted work for provider events; `runQueued` hands
 * the new run to the job queue after its transaction committed.
 */
export function createEnqueue(deps: { db: Database; now: () => string; runQueued(id: string): Promise<unknown> }) {
  const collections = new CollectionRepo(deps.db);
  const runs = new RunRepo(deps.db);
  const { now, runQueued } = deps;
  /** Throws QueueRefused when the run cannot be queued. */
  const tryEnqueue = async (collectionId: string, trigger: RunTrigger, scope: string[] | null = null) => {
    const c = await collections.getById(collectionId);
    if (!c) throw new QueueRefused('gone', 'Collection not found.');
    const active = await runs.active(collectionId);
    if (active) return { run: active, created: false };
    const event: SyncEvent = trigger === 'schedule' ? 'schedule' : trigger === 'retry' ? 'retry' : 'queue';
    const from = c.sync_status as SyncStatus;
    if (!nextStatus(from, event))
      throw new QueueRefused('status', `cannot queue a run while the collection is "${from}".`);
    // A retry resumes from the failed run's last checkpoint (its fingerprint guards against changed filters), but
    // only when that run is the latest: marks of a run older than a later success would misjudge deletions.
    const latest = trigger === 'retry' ? await runs.latest(collectionId) : undefined;
    // A targeted run's checkpoint covers only its custodians: a full retry never resumes from it.
    const previous = latest?.status === 'failed' && latest.scope === null ? latest : undefined;
    // One transaction: a crash can never leave the status promising a run that was not inserted.
    const result = await queueRun(deps.db, c, { from, event }, { trigger, scope, previous, at: now() });
    await runQueued(result.run.id);
    return result;
  };

  /**
   * Targeted work (sync/events/provider-events.ts TargetedWork): a run limited to some custodians, for collections that
   * re-sync on their own (auto, arch) and are in a state a run may be queued from. A queued event run not yet
   * claimed is widened instead; any other active run makes it `busy` (the marks wait for it to end).
   */
  const queueTargeted = async (collectionId: string, custodians: string[]): Promise<'queued' | 'busy' | 'dropped'> => {
    const c = await collections.getById(collectionId);
    if (!c || (c.type_sync !== 'auto' && c.type_sync !== 'arch') || c.sync_filters === null) return 'dropped';
    if (c.sync_status === 'error' || c.sync_status === 'created') return 'dropped';
    const active = await runs.active(collectionId);
    if (active) {
      if (active.status !== 'queued' || active.trigger !== 'event') return 'busy';
      const scope = [...new Set([...(JSON.parse(active.scope ?? '[]') as string[]), ...custodians])].sort();
      return (await runs.widenQueuedScope(active.id, scope)) ? 'queued' : 'busy';
    }
    if (c.sync_status !== 'synced' && c.sync_status !== 'failed') return 'busy';
    try {
      const { created } = await tryEnqueue(collectionId, 'event', [...custodians].sort());
      return created ? 'queued' : 'busy';
    } catch (err) {
      // the collection changed or went since it was read: the marks wait for the next run
      if (err instanceof QueueRefused) return 'busy';
      throw err;
    }
  };

  /** The same, with a refusal as the API answers it (404, 409). */
  const enqueue = (collectionId: string, trigger: RunTrigger, scope: string[] | null = null) =>
    tryEnqueue(collectionId, trigger, scope).catch((err: unknown) => {
      throw err instanceof QueueRefused ? err.toAppError() : err;
    });

  return { enqueue, queueTargeted };
}
