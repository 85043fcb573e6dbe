import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startZoomSandbox } from '../sandbox/zoom/index.ts';
import { loadConfig } from '../src/config.ts';
import { startCustody, type ServeProcess } from '../test/support/process.ts';
import { startBenchApi } from './flow.ts';
import { cpuMs, cpuMsBetween, cpuMsMatching } from './proc-cpu.ts';

const REDIRECT = 'http://127.0.0.1:9/bench-callback';
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 40);
/**
 * The credential's budget: generous, so that it does not bind (the fleet's rate is printed against it). At 400/s four
 * workers reached 381/s of it on a faster machine: the budget, not the workers, bounded that run.
 */
const BUDGET_PER_SECOND = 2000;

/**
 * One conf collection of 200 custodians (BENCH_SCALE scales it) against the Zoom simulator answering every request
 * 40 ms late, on PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL; a database of its own is created and dropped),
 * run once each with 1, 2 and 4 `custody worker` processes. Prints the time, the speed-up over one worker, and the
 * fleet's combined request rate against the credential's budget, and the CPU each process used during the run (Linux:
 * every worker, the bench process that hosts the simulator and the API, the bench database's PostgreSQL backends,
 * Redis) with the fleet's CPU per provider request, and the speed-up the machine's cores allow at most: the first run's
 * CPU spread over every core. BENCH_LATENCY_MS sets the simulator's lateness (default 40): a later answer costs no
 * more CPU, so at 200 ms that bound moves far out and the speed-up shows what the workers' coordination allows, as
 * 40 ms would on a machine with several times the cores.
 * BENCH_WORKERS picks the worker counts (default `1 2 4`); BENCH_WORKER_CONCURRENCY each worker's units at once
 * (WORKER_CONCURRENCY, default 4); BENCH_RERUN=1 syncs each collection again with nothing
 * changed and prints that run too (with the cursors its units wrote for the next run);
 * BENCH_CPU_PROF=<dir> writes each worker's V8 CPU profile there (`node --cpu-prof`).
 */
export async function benchScale(scale: number): Promise<Record<string, string>> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server');
  const users = Math.max(8, Math.round(200 * scale));
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  const dbName = `custody_bench_${crypto.randomBytes(4).toString('hex')}`;
  const admin = async (query: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(query);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const zoom = await startZoomSandbox({
    seed: 5,
    users,
    meetingsPerUser: 1,
    channels: 0,
    messagesPerChannel: 0,
    messagesPerChat: 0,
    oneToOnePeersPerUser: 0,
    fileSize: 4096,
    latencyMs: LATENCY_MS,
    rateLimits: { light: 5000, medium: 5000, heavy: 5000 },
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-scale-'));
  const env: Record<string, string> = {
    DATABASE_URL: url.toString(),
    DATA_DIR: dataDir,
    CUSTODY_SECRET_KEY: crypto.randomBytes(24).toString('base64'),
    LOG_LEVEL: 'info',
    ZOOM_CLIENT_ID: zoom.clientId,
    ZOOM_CLIENT_SECRET: zoom.clientSecret,
    ZOOM_OAUTH_URL: zoom.oauthUrl,
    ZOOM_API_URL: zoom.apiUrl,
    // The fleet-wide request budget through Redis when one is given (BENCH_REDIS_URL or TEST_REDIS_URL), else PostgreSQL.
    ...(redisUrl && { REDIS_URL: redisUrl }),
    ZOOM_LOOKBACK_DAYS: '30',
    ZOOM_REQUESTS_PER_SECOND: String(BUDGET_PER_SECOND),
    ZOOM_CONCURRENCY: '64',
    WORKER_CONCURRENCY: process.env.BENCH_WORKER_CONCURRENCY ?? '4',
    // DATABASE_PREPARED_STATEMENTS=false: the baseline of statements sent unnamed
    ...(process.env.DATABASE_PREPARED_STATEMENTS && {
      DATABASE_PREPARED_STATEMENTS: process.env.DATABASE_PREPARED_STATEMENTS,
    }),
  };
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', PORT: '0', WORKERS: 'none' });
  const { runtime, api } = await startBenchApi(config, { workers: false, redirect: REDIRECT });
  const out: Record<string, string> = {};
  let workers: ServeProcess[] = [];
  try {
    const all = { all_selected: true, selected: [], excluded: [] };
    const times: number[] = [];
    let bound: number | undefined;
    const counts = (process.env.BENCH_WORKERS ?? '1 2 4').split(/[ ,]+/).filter(Boolean).map(Number);
    const profDir = process.env.BENCH_CPU_PROF && path.resolve(process.env.BENCH_CPU_PROF);
    /** The collection synced again with nothing changed: its time, requests, CPU and what its units wrote as cursors. */
    const rerun = async (id: string, fleet: ServeProcess[]) => {
      const before = zoom.requests.length;
      const cpu0 = fleet.map((w) => cpuMs(w.child.pid) ?? 0);
      const t0 = performance.now();
      await api.call('POST', `/v1/collections/${id}/start`);
      const col = await api.waitFor(id, ['synced'], 15 * 60_000);
      const seconds = (performance.now() - t0) / 1000;
      const cpu = fleet.reduce((sum, w, i) => sum + (cpuMs(w.child.pid) ?? 0) - cpu0[i], 0) / 1000;
      const runId = (col.latest_run as { run_id: string }).run_id;
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      const { rows } = await c
        .query<{ units: string; bytes: string | null }>(
          'select count(*) as units, sum(length(pending_cursors)) as bytes from unit_jobs where run_id = $1',
          [runId],
        )
        .finally(() => c.end());
      const { units, bytes } = rows[0];
      return (
        `${seconds.toFixed(1)} s, ${zoom.requests.length - before} requests, workers' CPU ${cpu.toFixed(1)} s; ` +
        `cursors its ${units} units wrote: ${(Number(bytes ?? 0) / 1024).toFixed(0)} KiB`
      );
    };
    for (const n of counts) {
      const id = await api.collection('conf');
      await api.pair(id, 'conf', REDIRECT);
      await api.call('PATCH', `/v1/collections/${id}`, {
        type_sync: 'one',
        sync_filters: { account_owners: all, content_selections: all },
      });
      // one after the other: on a loaded 2-core machine four processes booting at once outlast the boot timeout
      for (let i = 0; i < n; i++) {
        const prof = profDir && { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.join(profDir, `${n}-${i}`)}` };
        workers.push(await startCustody(`worker-${n}-${i}`, { ...env, ...prof }, { worker: true }));
      }
      const before = zoom.requests.length;
      // CPU from here to the end of the run: the workers' start-up is outside the measured window.
      const cpu0 = {
        workers: workers.map((w) => cpuMs(w.child.pid) ?? 0),
        bench: process.cpuUsage(),
        pg: cpuMsMatching(dbName),
        redis: cpuMsMatching('redis-server'),
      };
      const load0 = os.loadavg()[0];
      const waits = await sampleLockWaits(adminUrl, dbName);
      const t0 = performance.now();
      await api.call('POST', `/v1/collections/${id}/start`);
      await api.waitFor(id, ['synced'], 15 * 60_000).finally(() => waits.stop());
      const seconds = (performance.now() - t0) / 1000;
      const requests = zoom.requests.length - before;
      const workerCpu = workers.map((w, i) => ((cpuMs(w.child.pid) ?? 0) - cpu0.workers[i]) / 1000);
      const benchCpu = (({ user, system }) => (user + system) / 1e6)(process.cpuUsage(cpu0.bench));
      const pgCpu = cpuMsBetween(cpu0.pg, cpuMsMatching(dbName)) / 1000;
      const redisCpu = cpuMsBetween(cpu0.redis, cpuMsMatching('redis-server')) / 1000;
      const fleetCpu = workerCpu.reduce((a, b) => a + b, 0);
      const allCpu = fleetCpu + benchCpu + pgCpu + redisCpu;
      times.push(seconds);
      // The first run's CPU, all processes together, spread over every core with nothing lost to contention: no
      // number of workers can finish sooner than that on this machine.
      bound ??= (seconds * os.cpus().length) / allCpu;
      // A run is split into one unit job per custodian: count the processes that executed at least one.
      const busy = workers.filter((w) => w.logs().some((l) => l.msg === 'unit started')).length;
      const units = workers.map((w) => w.logs().filter((l) => l.msg === 'unit started').length);
      const key = `scale ${n} worker${n > 1 ? 's' : ''}`;
      out[key] =
        `${seconds.toFixed(1)} s for ${users} custodians, speed-up ${(times[0] / seconds).toFixed(2)}x, ${requests} requests = ${(requests / seconds).toFixed(1)}/s ` +
        `against a budget of ${BUDGET_PER_SECOND}/s shared through ${redisUrl ? 'Redis' : 'PostgreSQL'} (${busy} of ${n} worker processes executed part of the run; units per worker ${units.join('/')}); ` +
        `CPU s: workers ${workerCpu.map((c) => c.toFixed(1)).join('/')} = ${fleetCpu.toFixed(1)} (${((fleetCpu * 1000) / Math.max(1, requests)).toFixed(1)} ms/request), ` +
        `simulator+API ${benchCpu.toFixed(1)}, PostgreSQL ${pgCpu.toFixed(1)}, Redis ${redisCpu.toFixed(1)}, all ${allCpu.toFixed(1)} ` +
        `of ${(seconds * os.cpus().length).toFixed(0)} core-s; PostgreSQL backends busy ${waits.summary()}; load ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}; ` +
        `the most ${os.cpus().length} cores allow over the first run: ${bound.toFixed(2)}x (its CPU over all cores, no contention)`;
      // printed as measured: a later step that fails does not lose it
      console.log(`${key}: ${out[key]}`);
      delete out[key];
      if (process.env.BENCH_RERUN === '1') console.log(`${key}, no-change re-run: ${await rerun(id, workers)}`);
      await Promise.all(workers.map((w) => w.stop('SIGTERM', 15_000)));
      workers = [];
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    await runtime.close();
    await zoom.close();
    await admin(`drop database if exists ${dbName} with (force)`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}

/**
 * Samples the bench database's active backends every 200 ms (pg_stat_activity): how many were busy on average, and
 * which share of them waited on a lock, with the statement most often waiting.
 */
async function sampleLockWaits(adminUrl: string, dbName: string) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  let samples = 0;
  let active = 0;
  let locked = 0;
  const statements = new Map<string, number>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await c.query<{ wait: string | null; query: string }>(
        `select wait_event_type as wait, left(query, 40) as query from pg_stat_activity
          where datname = $1 and state = 'active' and pid <> pg_backend_pid()`,
        [dbName],
      );
      samples++;
      active += rows.length;
      for (const r of rows.filter((r) => r.wait === 'Lock')) {
        locked++;
        const q = r.query.replace(/\s+/g, ' ');
        statements.set(q, (statements.get(q) ?? 0) + 1);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop.catch(() => undefined);
      await c.end();
    },
    summary: () => {
      const top = [...statements].sort((a, b) => b[1] - a[1])[0];
      return (
        `${(active / Math.max(1, samples)).toFixed(1)} on average, ${((100 * locked) / Math.max(1, active)).toFixed(0)} % of them waiting on a lock` +
        (top ? ` (most: \`${top[0]}…\`)` : '')
      );
    },
  };
}
