import { Logger, makeWorkerUtils, run, type Runner, type Task, type WorkerUtils } from 'graphile-worker';
import pg from 'pg';
import { MIGRATION_LOCK, newPgPool } from '../../store/db.ts';
import { unitJobId, type JobHandlers, type JobName, type JobPayloads } from './registry.ts';
import type { Queue, QueueLog } from './queue.ts';

export interface GraphileQueueOptions {
  connectionString: string;
  /** graphile-worker's own PostgreSQL schema (tests use one per test schema). */
  schema: string;
  /** The runner's connections (DATABASE_POOL_SIZE), at least one per job in flight and one to listen. */
  poolSize: number;
  concurrency: number;
  /** How often each worker makes sure a sweep job is waiting (at most one is: a job key). */
  sweepMs: number;
  log: QueueLog;
}

/**
 * PostgreSQL mode: jobs are graphile-worker jobs any worker process can take. Workers hear of new jobs through
 * LISTEN/NOTIFY (graphile-worker's), so a queued run or a due schedule starts at once; the poll interval is only
 * graphile-worker's fallback. API processes only add jobs (`runQueued`, `scheduleCollection`).
 */
export function createGraphileQueue(opts: GraphileQueueOptions): Queue {
  const logger = new Logger(() => (level, message, meta) => {
    if (level === 'error') opts.log.error({ ...meta }, `graphile-worker: ${message}`);
    else if (level === 'warning') opts.log.warn({ ...meta }, `graphile-worker: ${message}`);
  });
  let utils: Promise<WorkerUtils> | undefined;
  let runner: Runner | undefined;
  // graphile-worker's connections are pools of ours: a connection lost never ends the process (newPgPool), also not
  // while graphile-worker ends a pool of its own (it takes the pool's error listener off first), and they are ended
  // when the queue stops
  let utilsPool: pg.Pool | undefined;
  let runnerPool: pg.Pool | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  let starting: Promise<void> | undefined;

  const producer = () => {
    utils ??= (async () => {
      // makeWorkerUtils migrates graphile-worker's schema: under our migration lock (store/db.ts), so that its DDL
      // never runs while another process's migration reads the catalogue (Kysely's resolves every table by name,
      // and one dropped meanwhile fails it). run() migrates again later, finding nothing left to do.
      const lock = new pg.Client({ connectionString: opts.connectionString });
      lock.on('error', () => undefined); // a lost connection fails the query under way
      await lock.connect();
      try {
        await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
        utilsPool ??= newPgPool({ url: opts.connectionString, max: 2 });
        return await makeWorkerUtils({ pgPool: utilsPool, schema: opts.schema, logger });
      } finally {
        await lock.end(); // a session lock ends with its session
      }
    })();
    return utils;
  };
  const add = async <K extends JobName>(
    name: K,
    payload: JobPayloads[K],
    spec: { jobKey: string; runAt?: Date; mode: 'replace' | 'preserve_run_at' },
  ) => {
    const u = await producer();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs them: graphile-worker's addJob is typed by its own task map
    await u.addJob(name as string, payload as unknown, {
      jobKey: spec.jobKey,
      jobKeyMode: spec.mode,
      runAt: spec.runAt,
      maxAttempts: 5,
    });
  };
  const ensureSweep = () =>
    add('custody.sweep', {}, { jobKey: 'custody.sweep', mode: 'preserve_run_at' }).catch((err: unknown) =>
      opts.log.warn({ err }, 'could not queue the sweep job'),
    );

  return {
    // A job for a run still locked by a worker that died gets its key cleared and a new job is created.
    runQueued: (runId) => add('custody.run', { run_id: runId }, { jobKey: `run:${runId}`, mode: 'replace' }),
    unitQueued: (runId, unitKey) =>
      add('custody.unit', { run_id: runId, unit_key: unitKey }, { jobKey: unitJobId(runId, unitKey), mode: 'replace' }),
    exportQueued: (exportId) =>
      add('custody.export', { export_id: exportId }, { jobKey: `export:${exportId}`, mode: 'replace' }),
    scheduleCollection: (collectionId, at) =>
      add(
        'custody.schedule',
        { collection_id: collectionId },
        { jobKey: `schedule:${collectionId}`, runAt: at, mode: 'replace' },
      ),
    startWorking(handlers: JobHandlers) {
      starting ??= start(handlers);
      return starting;
    },
    // Idempotent, also when called twice at once or while the runner is still starting: a runner left running after
    // its process stopped would keep taking jobs for a process that is gone.
    async stop() {
      const wasStarting = starting;
      starting = undefined;
      await wasStarting?.catch(() => undefined);
      if (sweeper) clearInterval(sweeper);
      sweeper = undefined;
      const [r, pending, pools] = [runner, utils, [runnerPool, utilsPool]];
      runner = undefined;
      utils = undefined;
      runnerPool = undefined;
      utilsPool = undefined;
      await r?.stop().catch(() => undefined);
      const u = await pending?.catch(() => undefined);
      await u?.release();
      for (const pool of pools) await pool?.end().catch(() => undefined);
    },
  };

  async function start(handlers: JobHandlers): Promise<void> {
    await producer();
    const taskList = Object.fromEntries(
      Object.entries(handlers).map(([name, handler]) => [
        name,
        (async (payload: unknown) => handler(payload as never)) satisfies Task,
      ]),
    );
    runnerPool ??= newPgPool({ url: opts.connectionString, max: Math.max(opts.poolSize, opts.concurrency + 1) });
    const started = await run({
      pgPool: runnerPool,
      schema: opts.schema,
      concurrency: opts.concurrency,
      noHandleSignals: true,
      pollInterval: 10_000,
      logger,
      taskList,
    });
    runner = started;
    // A runner that stops by itself (its database connection dropped) is started again: this process is still a
    // worker, and a queue nobody takes jobs from would leave runs queued until another worker comes.
    started.promise
      .then(
        () => undefined,
        (err: unknown) => opts.log.error({ err }, 'the job runner stopped'),
      )
      .finally(() => {
        if (runner !== started || !starting) return;
        runner = undefined;
        setTimeout(() => {
          if (starting && !runner)
            void start(handlers).catch((err: unknown) => opts.log.error({ err }, 'the job runner could not restart'));
        }, 1000).unref();
      });
    await ensureSweep();
    if (sweeper) clearInterval(sweeper);
    sweeper = setInterval(() => void ensureSweep(), opts.sweepMs);
    sweeper.unref();
  }
}
