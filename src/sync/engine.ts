import type { BlobStore } from '../blobs/types.ts';
import type { Config } from '../config.ts';
import type { Connector, Logger } from '../connectors/types.ts';
import { conflict, notFound } from '../domain/errors.ts';
import type { Sealer } from '../domain/seal.ts';
import { nextStatus, type SyncEvent, type SyncStatus } from '../domain/sync-state.ts';
import { CollectionRepo } from '../store/collections.ts';
import { isHeld } from '../store/holds.ts';
import type { Database } from '../store/db.ts';
import { countersOf, RunRepo, type RunRow, type RunTrigger } from '../store/runs.ts';
import { BudgetRegistry } from './budget.ts';
import { CredentialManager, type CredentialManagerOptions } from './credentials.ts';
import type { EngineApi, RunSummary } from './engine-api.ts';
import { createInProcessExecutor, type Executor } from './executor.ts';
import { sweepOrphans } from './orphans.ts';
import { currentIdentity, isDeadOwner as deadOwnerOf, ownerString, samePidNamespacePrefix } from './owner.ts';
import { finishDeletion, finishWorkspaceDeletion } from './deletion.ts';
import { purgeCollectionData } from './purge.ts';
import { reconcileStuckCollections } from './reconcile.ts';
import { executeRun, RunStopped, type RetryPolicy, type RunOutcome } from './runner.ts';
import { createScheduler, type Scheduler } from './scheduler.ts';

export interface SyncEngineDeps {
  db: Database;
  sealer: Sealer;
  blobs: BlobStore;
  connectors: { get(type: string): Connector | undefined };
  config: Pick<Config, 'sync'>;
  log: Logger;
  clock?: () => Date;
  /**
   * Whether a legal hold covers the collection: tombstoned content and superseded versions are then kept. The
   * legal_holds table is always consulted (inside each write transaction); this adds another source (tests).
   */
  isHeld?(collectionId: string): Promise<boolean>;
  /**
   * The process-wide request budgets and credential manager (sync/provider-context.ts providerResources):
   * discovery requests and runs must share them. Created here when absent.
   */
  resources?: { budgets: BudgetRegistry; credentials: CredentialManager };
  tuning?: EngineTuning;
}

export interface EngineTuning {
  /** A run's lease; another process may take the run over once it expires. Default 60 s. */
  leaseMs?: number;
  /** Default leaseMs / 4. */
  heartbeatMs?: number;
  /** Executor poll interval. Default 1 s. */
  pollMs?: number;
  /** Scheduler tick. Default 15 s. */
  schedulerTickMs?: number;
  retry?: Partial<RetryPolicy>;
  /** At boot, temp files and unreferenced blobs older than this are removed (crash leftovers). Default 1 h. */
  orphanAgeMs?: number;
  credentials?: Omit<CredentialManagerOptions, 'db' | 'sealer' | 'log' | 'clock'>;
}

export interface SyncEngine extends EngineApi {
  /** Queues a run with a trigger; returns the active run (created: false when one already was). */
  enqueue(collectionId: string, trigger: RunTrigger): Promise<{ run: RunRow; created: boolean }>;
  /** Executes one run to its end in this process (claims it first). */
  runOnce(runId: string, opts?: { signal?: AbortSignal }): Promise<RunOutcome>;
  claimableRunIds(limit: number): Promise<string[]>;
  /**
   * Starts the in-process executor (config.sync.concurrency runs at a time), the scheduler, and resumes runs
   * left by a process that died. Call it in processes that execute runs: `serve` with WORKERS=inline, `worker`.
   */
  startBackground(): void;
  /** Stops background work; interrupted runs keep their checkpoint and resume elsewhere or at next boot. */
  stop(): Promise<void>;
  readonly credentials: CredentialManager;
  readonly scheduler: Scheduler;
  readonly owner: string;
}

const DEFAULT_RETRY: RetryPolicy = { baseMs: 60_000, maxMs: 60 * 60_000, maxFailures: 8 };

export function runSummary(run: RunRow): RunSummary {
  const { error_count, ...counters } = countersOf(run);
  return {
    run_id: run.id,
    trigger: run.trigger,
    status: run.status,
    counters,
    started_datetime: run.started_at,
    finished_datetime: run.finished_at,
    error_count,
  };
}

/** Rolls back a status change when another process queued the collection's run first. */
class AlreadyQueued extends Error {
  constructor(readonly run: RunRow) {
    super('a run is already queued');
  }
}

export function createSyncEngine(deps: SyncEngineDeps): SyncEngine {
  const clock = deps.clock ?? (() => new Date());
  const now = () => clock().toISOString();
  const leaseMs = deps.tuning?.leaseMs ?? 60_000;
  const heartbeatMs = deps.tuning?.heartbeatMs ?? Math.max(50, Math.floor(leaseMs / 4));
  const identity = currentIdentity();
  const owner = ownerString(identity);
  const runs = new RunRepo(deps.db);
  const collections = new CollectionRepo(deps.db);
  const credentials =
    deps.resources?.credentials ?? new CredentialManager({ db: deps.db, sealer: deps.sealer, log: deps.log, clock, ...deps.tuning?.credentials });
  const runner = {
    db: deps.db,
    blobs: deps.blobs,
    connectors: deps.connectors,
    credentials,
    budgets: deps.resources?.budgets ?? new BudgetRegistry(),
    log: deps.log,
    clock,
    isHeld: deps.isHeld ?? ((collectionId: string) => isHeld(deps.db, collectionId)),
    heldOverride: deps.isHeld,
    intervalMinutes: deps.config.sync.intervalMinutes,
    retry: { ...DEFAULT_RETRY, ...deps.tuning?.retry },
  };
  const local = new Map<string, { runId: string; controller: AbortController; done: Promise<RunOutcome> }>();
  let executor: Executor | undefined;

  /** An owner in this PID namespace whose process is gone: its runs can be resumed without waiting for the lease. */
  const isDeadOwner = (leaseOwner: string | null): boolean => deadOwnerOf(leaseOwner, identity, owner);

  const enqueue = async (collectionId: string, trigger: RunTrigger) => {
    const c = await collections.getById(collectionId);
    if (!c) throw notFound('Collection');
    const active = await runs.active(collectionId);
    if (active) return { run: active, created: false };
    const event: SyncEvent = trigger === 'schedule' ? 'schedule' : trigger === 'retry' ? 'retry' : 'queue';
    const from = c.sync_status as SyncStatus;
    const to = nextStatus(from, event);
    if (!to) throw conflict(`cannot queue a run while the collection is "${from}".`);
    // A retry resumes from the failed run's last checkpoint (its fingerprint guards against changed filters), but
    // only when that run is the latest: marks of a run older than a later success would misjudge deletions.
    const latest = trigger === 'retry' ? await runs.latest(collectionId) : undefined;
    const previous = latest?.status === 'failed' ? latest : undefined;
    // One transaction: a crash can never leave the status promising a run that was not inserted.
    const result = await deps.db
      .transaction()
      .execute(async (trx) => {
        const txCollections = new CollectionRepo(trx as unknown as Database);
        if (!(await txCollections.lockLive(collectionId))) throw notFound('Collection');
        if (from !== to && !(await txCollections.transition(collectionId, from, to))) {
          throw conflict('the collection changed while the run was being queued; try again.');
        }
        const queued = await new RunRepo(trx as unknown as Database).insertQueued(
          {
            collectionId,
            accountId: c.account_id,
            trigger,
            at: now(),
            checkpoint: previous?.checkpoint,
            filtersFingerprint: previous?.filters_fingerprint,
            listingRunId: previous?.checkpoint ? (previous.listing_run_id ?? previous.id) : null,
          },
          trx,
        );
        // Someone else queued first: leave the status as it was.
        if (!queued.created) throw new AlreadyQueued(queued.run);
        return queued;
      })
      .catch((err: unknown) => {
        if (err instanceof AlreadyQueued) return { run: err.run, created: false };
        throw err;
      });
    executor?.kick();
    return result;
  };

  const claim = async (runId: string): Promise<RunRow | undefined> => {
    const row = await runs.get(runId);
    if (!row || (row.status !== 'queued' && row.status !== 'running')) return undefined;
    const dead = row.status === 'running' && isDeadOwner(row.lease_owner) ? row.lease_owner! : undefined;
    const at = clock();
    return runs.claim(runId, owner, at.toISOString(), new Date(at.getTime() + leaseMs).toISOString(), dead);
  };

  const runOnce = async (runId: string, opts: { signal?: AbortSignal } = {}): Promise<RunOutcome> => {
    const run = await claim(runId);
    if (!run) return { status: 'not_claimed', error: null };
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(new RunStopped('shutdown'));
    opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
    const heartbeat = setInterval(() => {
      const at = clock();
      runs
        .heartbeat(runId, owner, at.toISOString(), new Date(at.getTime() + leaseMs).toISOString())
        .then(async (ok) => {
          if (ok || controller.signal.aborted) return;
          const current = await runs.get(runId);
          controller.abort(new RunStopped(current?.status === 'cancelled' ? 'cancelled' : 'lease_lost'));
        })
        .catch((err: unknown) => deps.log.warn({ err, run_id: runId }, 'heartbeat failed'));
    }, heartbeatMs);
    const done = executeRun(runner, run, owner, controller.signal);
    local.set(run.collection_id, { runId, controller, done });
    try {
      const outcome = await done;
      if (outcome.status === 'interrupted') await runs.releaseLease(runId, owner, now());
      return outcome;
    } finally {
      clearInterval(heartbeat);
      opts.signal?.removeEventListener('abort', onOuterAbort);
      if (local.get(run.collection_id)?.runId === runId) local.delete(run.collection_id);
    }
  };

  const cancel = async (collectionId: string) => {
    await deps.db.transaction().execute(async (trx) => {
      const cancelled = await runs.cancelActive(collectionId, now(), trx);
      if (cancelled.length > 0) {
        const txCollections = new CollectionRepo(trx as unknown as Database);
        const reason = 'the sync was cancelled; start it again';
        // A queued run leaves `pending` behind, which the scheduler's repair would queue again.
        if (!(await txCollections.transition(collectionId, 'syncing', 'error', reason))) await txCollections.transition(collectionId, 'pending', 'error', reason);
      }
    });
    const mine = local.get(collectionId);
    if (mine) {
      mine.controller.abort(new RunStopped('cancelled'));
      await mine.done.catch(() => undefined);
    }
  };

  /** Deletions a stopped process left in the deleting state (sync/deletion.ts): their guards already passed. */
  const finishInterruptedDeletions = async () => {
    for (const id of await collections.deletingIds()) {
      await finishDeletion(engine, collections, id);
      deps.log.info({ collection_id: id }, 'finished a collection deletion interrupted by a stop');
    }
    const workspaces = await deps.db.selectFrom('workspaces').select('id').where('deleting_at', 'is not', null).execute();
    for (const { id } of workspaces) {
      await finishWorkspaceDeletion({ db: deps.db, engine, collections }, id);
      deps.log.info({ workspace_id: id }, 'finished a workspace deletion interrupted by a stop');
    }
  };

  const reconcile = () => reconcileStuckCollections({ db: deps.db, clock, retry: runner.retry, requeue: (id) => enqueue(id, 'start'), log: deps.log });
  const scheduler = createScheduler({ db: deps.db, enqueue, reconcile, clock, tickMs: deps.tuning?.schedulerTickMs, log: deps.log });

  const engine: SyncEngine = {
    owner,
    credentials,
    scheduler,
    enqueue,
    async queue(collectionId) {
      await enqueue(collectionId, 'start');
    },
    async start(collectionId) {
      const c = await collections.getById(collectionId);
      if (!c) throw notFound('Collection');
      const active = await runs.active(collectionId);
      if (active) {
        if (c.sync_status === 'pending') await collections.transition(collectionId, 'pending', 'syncing');
        executor?.kick();
        return { runId: active.id, created: false };
      }
      // One transaction, so that a crash never leaves `syncing` (or `pending`) without the run it promises.
      const { run, created } = await deps.db.transaction().execute(async (trx) => {
        const txCollections = new CollectionRepo(trx as unknown as Database);
        if (!(await txCollections.lockLive(collectionId))) throw notFound('Collection');
        let from = c.sync_status as SyncStatus;
        // Filters saved without sync_status=pending leave the collection `created`: start queues, then starts.
        if (from === 'created' && c.sync_filters !== null && (await txCollections.transition(collectionId, 'created', 'pending'))) from = 'pending';
        // `syncing` without an active run is left over from a cancelled run: starting again repairs it.
        if (from !== 'syncing' && !nextStatus(from, 'start')) throw conflict(`cannot start a collection that is "${from}".`);
        const queued = await new RunRepo(trx as unknown as Database).insertQueued({ collectionId, accountId: c.account_id, trigger: 'start', at: now() }, trx);
        if (queued.created && from !== 'syncing') await txCollections.transition(collectionId, from, 'syncing');
        return queued;
      });
      executor?.kick();
      return { runId: run.id, created };
    },
    cancel,
    async purgeCollection(collectionId) {
      await cancel(collectionId);
      await purgeCollectionData(deps.db, deps.blobs, collectionId, now);
    },
    async latestRun(collectionId) {
      const run = await runs.latest(collectionId);
      return run ? runSummary(run) : null;
    },
    runOnce,
    async claimableRunIds(limit) {
      const rows = await runs.claimable(now(), limit);
      const prefix = samePidNamespacePrefix(identity);
      const orphaned = prefix ? (await runs.runningOwnedBy(prefix)).filter((r) => isDeadOwner(r.lease_owner)) : [];
      return [...new Set([...orphaned, ...rows].map((r) => r.id))].slice(0, Math.max(limit, orphaned.length));
    },
    startBackground() {
      if (executor) return;
      void sweepOrphans({ db: deps.db, blobs: deps.blobs, log: deps.log, now: clock() }, deps.tuning?.orphanAgeMs ?? 60 * 60_000).catch((err: unknown) =>
        deps.log.warn({ err }, 'content store orphan sweep failed'),
      );
      void finishInterruptedDeletions().catch((err: unknown) => deps.log.warn({ err }, 'finishing interrupted collection deletions failed'));
      executor = createInProcessExecutor({ source: engine, concurrency: deps.config.sync.concurrency, pollMs: deps.tuning?.pollMs, log: deps.log });
      executor.start();
      scheduler.start();
    },
    async stop() {
      scheduler.stop();
      const stopping = executor?.stop();
      for (const entry of local.values()) entry.controller.abort(new RunStopped('shutdown'));
      await Promise.all([...local.values()].map((e) => e.done.catch(() => undefined)));
      await stopping;
      executor = undefined;
    },
  };
  return engine;
}
