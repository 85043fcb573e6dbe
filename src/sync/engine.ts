import type { BlobStore } from '../blobs/types.ts';
import type { DocumentReader } from '../search/index.ts';
import type { Config } from '../config.ts';
import type { Connector, Logger } from '../connectors/types.ts';
import { conflict, notFound } from '../domain/errors.ts';
import { CollectionRepo } from '../store/collections.ts';
import { HoldRepo } from '../store/holds.ts';
import type { Database } from '../store/db.ts';
import { WorkspaceRepo } from '../store/workspaces.ts';
import { RunRepo, type RunRow, type RunTrigger } from '../store/runs.ts';
import { UnitRepo } from '../store/units.ts';
import { runSummary } from '../read/run-summary.ts';
import type { CredentialManager } from './providers/credentials.ts';
import type { EngineApi } from './engine-api.ts';
import { createQueue, exportJobId, handOff, unitJobId, type Queue } from './jobs/index.ts';
import { purgeCollectionExports } from '../export/purge.ts';
import { createExporter } from '../export/runner.ts';
import type { SigningKeys } from '../export/keys.ts';
import { jobHandlers } from './jobs/handlers.ts';
import { createUnitWorker } from './execution/unit-worker.ts';
import { createRunWorker } from './execution/run-worker.ts';
import { UnitJobRepo } from '../store/unit-jobs.ts';
import { withLiveCounters } from '../store/run-counters.ts';
import { sweepOrphans } from './schedule/orphans.ts';
import { currentIdentity, isDeadOwner as deadOwnerOf, ownerString, samePidNamespacePrefix } from './execution/owner.ts';
import { finishDeletion, finishWorkspaceDeletion } from './deletion/deletion.ts';
import { purgeCollectionData } from './deletion/purge.ts';
import { repairStuckCollections } from './schedule/repair-stuck.ts';
import type { ProviderSessions } from './providers/provider-session.ts';
import type { Metrics } from '../metrics.ts';
import type { RunOutcome } from './execution/runner.ts';
import { DEFAULT_RUN_BACKOFF, type RunBackoff } from '../domain/run-outcome.ts';
import { createScheduler, type Scheduler } from './schedule/scheduler.ts';
import type { NextRunDeps } from './schedule/next-run.ts';
import { cancelRuns, createEnqueue, startRun } from './runs/queueing.ts';
import { startRefusal } from './runs/readiness.ts';

export interface SyncEngineDeps {
  db: Database;
  blobs: BlobStore;
  /** Reads docx and PDF text for the search index (one per process, stopped by its owner). */
  documents: DocumentReader;
  connectors: { get(type: string): Connector | undefined };
  config: { sync: Pick<Config['sync'], 'intervalMinutes' | 'concurrency'> & Partial<Config['sync']> };
  log: Logger;
  clock?: () => Date;
  /**
   * Whether a legal hold covers the collection: tombstoned content and superseded versions are then kept. The
   * legal_holds table is always consulted (inside each write transaction); this adds another source (tests).
   */
  isHeld?(collectionId: string): Promise<boolean>;
  /** The process's metrics (runs, items, bytes). */
  metrics?: Metrics;
  /** The process's one provider session factory (built in the composition root): discovery shares it. */
  sessions: ProviderSessions;
  tuning?: EngineTuning;
  /** PostgreSQL deployments: jobs go through graphile-worker in its own schema. Absent: the in-process queue. */
  jobs?: { connectionString: string; schema: string; poolSize: number };
  /** The installation's signing keys: exports run on this engine's queue (export/runner.ts). */
  keys?: SigningKeys;
}

export interface EngineTuning {
  /** A run's lease; another process may take the run over once it expires. Default 60 s. */
  leaseMs?: number;
  /** Default leaseMs / 4, at most 2 s. */
  heartbeatMs?: number;
  /** Executor poll interval. Default 1 s. */
  pollMs?: number;
  /** Scheduler tick: the sweep (repairs, due schedules, runs whose worker died). Default 15 s. */
  schedulerTickMs?: number;
  retry?: Partial<RunBackoff>;
  /** At boot, temp files and unreferenced blobs older than this are removed (crash leftovers). Default 1 h. */
  orphanAgeMs?: number;
}

export interface SyncEngine extends EngineApi {
  /** Queues a run with a trigger; returns the active run (created: false when one already was). */
  enqueue(
    collectionId: string,
    trigger: RunTrigger,
    scope?: string[] | null,
  ): Promise<{ run: RunRow; created: boolean }>;
  /** Targeted work for provider events: see sync/events/provider-events.ts TargetedWork. */
  queueTargeted(collectionId: string, custodians: string[]): Promise<'queued' | 'busy' | 'dropped'>;
  /** Executes one run to its end in this process (claims it first). */
  runOnce(runId: string, opts?: { signal?: AbortSignal }): Promise<RunOutcome>;
  /** Executes one unit of a fanned-out run to its end in this process (claims it first). */
  runUnit(runId: string, unitKey: string, opts?: { signal?: AbortSignal }): Promise<{ status: string }>;
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

export function createSyncEngine(deps: SyncEngineDeps): SyncEngine {
  const clock = deps.clock ?? (() => new Date());
  const now = () => clock().toISOString();
  const leaseMs = deps.tuning?.leaseMs ?? 60_000;
  // At most 2 s: a cancel committed by any process is noticed at the next heartbeat, within seconds.
  const heartbeatMs = deps.tuning?.heartbeatMs ?? Math.max(50, Math.min(2_000, Math.floor(leaseMs / 4)));
  const stallMs = (deps.config.sync.unitStallSeconds ?? 300) * 1000;
  const identity = currentIdentity();
  const owner = ownerString(identity);
  const runs = new RunRepo(deps.db);
  const collections = new CollectionRepo(deps.db);
  const workspaces = new WorkspaceRepo(deps.db);
  const credentials = deps.sessions.credentials;
  const runner = {
    db: deps.db,
    blobs: deps.blobs,
    documents: deps.documents,
    connectors: deps.connectors,
    sessions: deps.sessions,
    metrics: deps.metrics,
    log: deps.log,
    clock,
    isHeld: deps.isHeld ?? ((collectionId: string) => new HoldRepo(deps.db).isHeld(collectionId)),
    heldOverride: deps.isHeld,
    intervalMinutes: deps.config.sync.intervalMinutes,
    retry: { ...DEFAULT_RUN_BACKOFF, ...deps.tuning?.retry },
  };
  let working = false;

  const sweepMs = deps.tuning?.schedulerTickMs ?? 15_000;
  const queue: Queue = deps.jobs
    ? createQueue({ kind: 'graphile', ...deps.jobs, concurrency: deps.config.sync.concurrency, sweepMs, log: deps.log })
    : createQueue({
        kind: 'in-process',
        concurrency: deps.config.sync.concurrency,
        sweepMs,
        pollMs: deps.tuning?.pollMs,
        claimable: (limit) => engine.claimableRunIds(limit),
        log: deps.log,
      });
  const runQueued = handOff(queue, deps.log);

  /** An owner in this PID namespace whose process is gone: its runs can be resumed without waiting for the lease. */
  const isDeadOwner = (leaseOwner: string | null): boolean => deadOwnerOf(leaseOwner, identity, owner);

  const { enqueue, queueTargeted } = createEnqueue({ db: deps.db, now, runQueued });
  const next: NextRunDeps = { db: deps.db, enqueue, scheduleCollection: (id, at) => queue.scheduleCollection(id, at) };

  const runWorker = createRunWorker({
    runner,
    owner,
    leaseMs,
    heartbeatMs,
    stallMs,
    isDeadOwner,
    metrics: deps.metrics,
    log: deps.log,
  });

  const cancel = async (collectionId: string) => {
    const stopped = await cancelRuns(deps.db, collectionId, now());
    await runWorker.stopCollection(collectionId, 'cancelled');
    await units.stopRuns(stopped, 'cancelled');
  };

  /** Deletions a stopped process left in the deleting state (sync/deletion/deletion.ts): their guards already passed. */
  const finishInterruptedDeletions = async () => {
    for (const id of await collections.deletingIds()) {
      await finishDeletion(engine, collections, id);
      deps.log.info({ collection_id: id }, 'finished a collection deletion interrupted by a stop');
    }
    for (const id of await workspaces.deletingIds()) {
      await finishWorkspaceDeletion({ engine, collections, workspaces }, id);
      deps.log.info({ workspace_id: id }, 'finished a workspace deletion interrupted by a stop');
    }
  };

  const units = createUnitWorker({
    runner,
    owner,
    leaseMs,
    heartbeatMs,
    stallMs,
    isDeadOwner,
    ownerPrefix: samePidNamespacePrefix(identity),
    metrics: deps.metrics,
    log: deps.log,
    next,
  });

  const reconcile = () =>
    repairStuckCollections({
      db: deps.db,
      clock,
      retry: runner.retry,
      requeue: (id) => enqueue(id, 'start'),
      log: deps.log,
    });
  const scheduler = createScheduler({
    db: deps.db,
    enqueue,
    reconcile,
    clock,
    log: deps.log,
  });

  const exporter = deps.keys
    ? createExporter({
        db: deps.db,
        blobs: deps.blobs,
        documents: deps.documents,
        keys: deps.keys,
        log: deps.log,
        owner,
        clock,
        leaseMs,
        stallMs,
      })
    : undefined;

  const handlers = jobHandlers({
    runs,
    collections,
    queue,
    clock,
    log: deps.log,
    unitJobs: new UnitJobRepo(deps.db),
    runWorker,
    unitWorker: units,
    next,
    enqueue,
    tick: () => scheduler.tick(),
    claimableRunIds: (limit) => engine.claimableRunIds(limit),
    runQueued,
    runExport: async (id) => exporter?.run(id),
  });

  const engine: SyncEngine = {
    owner,
    credentials,
    scheduler,
    enqueue,
    queueTargeted,
    async queue(collectionId) {
      const active = await runs.active(collectionId);
      const follows = active !== undefined && (active.status === 'running' || active.scope !== null);
      if (!follows || !(await collections.requestRerun(collectionId, now()))) await enqueue(collectionId, 'start');
    },
    async requestStart(collectionId) {
      const c = await collections.getById(collectionId);
      if (!c) throw notFound('Collection');
      const refusal = await startRefusal(deps, c, deps.connectors.get(c.type));
      if (refusal) throw conflict(refusal.code, refusal.message);
      const { runId, created } = await engine.start(collectionId);
      return { runId, created, syncStatus: (await collections.getById(collectionId))?.sync_status ?? 'syncing' };
    },
    async start(collectionId) {
      const c = await collections.getById(collectionId);
      if (!c) throw notFound('Collection');
      const active = await runs.active(collectionId);
      if (active) {
        if (c.sync_status === 'pending') await collections.transition(collectionId, 'start', { from: 'pending' });
        await runQueued(active.id);
        return { runId: active.id, created: false };
      }
      // One transaction, so that a crash never leaves `syncing` (or `pending`) without the run it promises.
      const { run, created } = await startRun(deps.db, c, now());
      await runQueued(run.id);
      return { runId: run.id, created };
    },
    cancel,
    async purgeCollection(collectionId) {
      await cancel(collectionId);
      await purgeCollectionExports(deps.db, deps.blobs, collectionId, now, async (id) => exporter?.cancel(id));
      await purgeCollectionData(deps.db, deps.blobs, collectionId, now);
    },
    async latestRun(collectionId) {
      const [run] = await withLiveCounters(
        deps.db,
        [await runs.latest(collectionId)].filter((r) => r !== undefined),
      );
      return run ? runSummary(run, (await new UnitRepo(deps.db).tallies([run.id])).get(run.id)) : null;
    },
    exportQueued: (exportId) => runQueued(exportJobId(exportId)),
    async exportCancelled(exportId) {
      await exporter?.cancel(exportId);
    },
    runOnce: runWorker.runOnce,
    runUnit: (runId, unitKey, opts = {}) => units.run(runId, unitKey, opts.signal),
    async claimableRunIds(limit) {
      const rows = await runs.claimable(now(), limit);
      const prefix = samePidNamespacePrefix(identity);
      const orphaned = prefix ? (await runs.runningOwnedBy(prefix)).filter((r) => isDeadOwner(r.lease_owner)) : [];
      const ids = [...new Set([...orphaned, ...rows].map((r) => r.id))].slice(0, Math.max(limit, orphaned.length));
      const exportIds = exporter ? (await exporter.claimable(limit)).map(exportJobId) : [];
      const unitIds = (await units.claimable(limit)).map((u) => unitJobId(u.run_id, u.unit_key));
      return [...ids, ...unitIds, ...exportIds];
    },
    startBackground() {
      if (working) return;
      void sweepOrphans(
        { db: deps.db, blobs: deps.blobs, log: deps.log, now: clock() },
        deps.tuning?.orphanAgeMs ?? 60 * 60_000,
      ).catch((err: unknown) => deps.log.warn({ err }, 'content store orphan sweep failed'));
      void finishInterruptedDeletions().catch((err: unknown) =>
        deps.log.warn({ err }, 'finishing interrupted collection deletions failed'),
      );
      working = true;
      queue.startWorking(handlers).then(
        () =>
          void handlers['custody.sweep']({}).catch((err: unknown) => deps.log.warn({ err }, 'the first sweep failed')),
        (err: unknown) => deps.log.error({ err }, 'the job queue could not start: this process executes no runs'),
      );
    },
    async stop() {
      const stopping = queue.stop();
      await runWorker.stopAll();
      await units.stopAll();
      await exporter?.stopAll();
      await stopping;
      // stays stopped: its workers give back whatever they would be handed (startBackground does nothing now)
    },
  };
  return engine;
}
