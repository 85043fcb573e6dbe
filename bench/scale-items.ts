import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { sql } from 'kysely';
import pg from 'pg';
import { Agent, setGlobalDispatcher } from 'undici';
import { loadConfig } from '../src/config.ts';
import { searchItems } from '../src/search/service.ts';
import { encodeCursor } from '../src/store/paging.ts';
import type { Database } from '../src/store/db.ts';
import { type ApiClient, startBenchApi } from './flow.ts';
import { cpuMs, cpuMsBetween, cpuMsMatching } from './proc-cpu.ts';
import { seedItems } from './scale-items-seed.ts';

const REDIRECT = 'http://127.0.0.1:9/bench-callback';
const MiB = 1024 * 1024;
/** Items synced through the Graph simulator per size (the rest is seeded through the store); BENCH_SYNC_ITEMS. */
const SYNC_ITEMS = Number(process.env.BENCH_SYNC_ITEMS ?? 2000);
/** Files per custodian in the simulator (BENCH_FILES_PER_CUSTODIAN; 1 with BENCH_SYNC_ITEMS=10000: 10k custodians). */
const FILES_PER_CUSTODIAN = Number(process.env.BENCH_FILES_PER_CUSTODIAN ?? 50);

type Out = Record<string, string>;
const ms = (x: number) => `${x.toFixed(1)} ms`;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function timed(n: number, fn: () => Promise<unknown>): Promise<{ p50: number; p95: number; p99: number }> {
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  return { p50: pct(t, 0.5), p95: pct(t, 0.95), p99: pct(t, 0.99) };
}

/**
 * The service's RSS from now on: its peak and growth. With BENCH_RETAINED=1 (and `--expose-gc`) also what the heap
 * keeps: a full collection each second, the largest heap left after one (`retained`, from the heap after the first).
 * The RSS peak alone counts garbage the collector has not reached yet; the collections cost the run some time.
 */
function rssSampler() {
  global.gc?.();
  const start = process.memoryUsage.rss();
  const heapAtStart = process.memoryUsage().heapUsed;
  let peak = start;
  let retained: number | undefined;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  const collector =
    process.env.BENCH_RETAINED === '1' && global.gc
      ? setInterval(() => {
          global.gc?.();
          retained = Math.max(retained ?? 0, process.memoryUsage().heapUsed - heapAtStart);
        }, 1000)
      : undefined;
  return () => {
    clearInterval(timer);
    clearInterval(collector);
    peak = Math.max(peak, process.memoryUsage.rss());
    const kept = retained === undefined ? '' : `, heap retained +${(retained / MiB).toFixed(1)} MiB at most`;
    return { growth: (peak - start) / MiB, peak: peak / MiB, kept };
  };
}

async function graphSandbox(users: number) {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(import.meta.dirname, 'scale-items-sandbox.ts'),
      String(users),
      String(FILES_PER_CUSTODIAN),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = readline.createInterface({ input: child.stdout! });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
    });
  const info = JSON.parse(await next()) as {
    loginUrl: string;
    graphUrl: string;
    clientId: string;
    clientSecret: string;
    userIds: string[];
  };
  return {
    info,
    async requests(): Promise<Record<string, number>> {
      const line = next();
      child.stdin!.write('\n');
      return JSON.parse(await line) as Record<string, number>;
    },
    pid: child.pid,
    close: () => child.kill('SIGTERM'),
  };
}

/** The service's settings for a Graph simulator, with a budget that does not bind (what is measured is Custody's own cost). */
export function unboundGraphEnv(info: { clientId: string; clientSecret: string; loginUrl: string; graphUrl: string }) {
  return {
    MS_CLIENT_ID: info.clientId,
    MS_CLIENT_SECRET: info.clientSecret,
    MS_LOGIN_URL: info.loginUrl,
    MS_GRAPH_URL: info.graphUrl,
    MS_RESOURCE_UNITS_PER_SECOND: '100000',
    MS_MAX_RESOURCE_UNITS_PER_SECOND: '100000',
    MS_CONCURRENCY: '32',
  };
}

/** A fresh store: a SQLite file in the data directory, or a PostgreSQL database of its own (dropped after). */
export async function freshStore(kind: 'sqlite' | 'postgres', prefix = 'custody-bench-scale-items-') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (kind === 'sqlite') return { dataDir, env: {}, database: undefined, drop: async () => undefined };
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server');
  const name = `custody_bench_${crypto.randomBytes(4).toString('hex')}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(q);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dataDir,
    env: { DATABASE_URL: url.toString() },
    database: name,
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/**
 * CPU used from now on, per custodian: this process (the service, with the bench's own status polls), the simulator,
 * and on PostgreSQL the bench database's backends (Linux /proc; a backend that exits meanwhile is not counted).
 * Wall time on a busy 2-core machine depends on who else runs; CPU per custodian says whether a cost grows with N.
 */
export function cpuSampler(simulator: number | undefined, database: string | undefined) {
  const service = process.cpuUsage();
  const sim = cpuMs(simulator);
  const pg = database === undefined ? undefined : { database, before: cpuMsMatching(database) };
  return (custodians: number, unit = 'custodian') => {
    const per = (ms: number) => `${(ms / custodians).toFixed(2)} ms`;
    const { user, system } = process.cpuUsage(service);
    const parts = [`service ${per((user + system) / 1000)}`];
    const simNow = cpuMs(simulator);
    if (sim !== null && simNow !== null) parts.push(`simulator ${per(simNow - sim)}`);
    if (pg) parts.push(`PostgreSQL ${per(cpuMsBetween(pg.before, cpuMsMatching(pg.database)))}`);
    return `CPU per ${unit}: ${parts.join(', ')}`;
  };
}

async function dbBytes(db: Database, kind: 'sqlite' | 'postgres', dataDir: string): Promise<number> {
  if (kind === 'postgres') {
    const r = await sql<{ n: string }>`select pg_database_size(current_database()) as n`.execute(db);
    return Number(r.rows[0].n);
  }
  return fs
    .readdirSync(dataDir)
    .filter((f) => f.startsWith('custody.db'))
    .reduce((sum, f) => sum + fs.statSync(path.join(dataDir, f)).size, 0);
}

/** Reads a response to its end in a process of its own, printing its byte count every MiB and its times at the end. */
const READER = `
const [url, token] = process.argv.slice(1);
const t0 = performance.now();
const res = await fetch(url, { headers: { authorization: 'Bearer ' + token } });
let bytes = 0, first = 0, mark = 0;
for await (const chunk of res.body) {
  if (!first) first = performance.now() - t0;
  bytes += chunk.length;
  if (bytes - mark >= 1048576) process.stdout.write((mark = bytes) + '\\n');
}
process.stdout.write(JSON.stringify({ first, total: performance.now() - t0, bytes }) + '\\n');`;

/**
 * Time to the first byte and to the last of a streamed response, and the service's RSS growth meanwhile: over the
 * whole stream, and from the end of its first tenth to its end (what grows with the items; the first tenth holds
 * the one-time growth of V8's young generation to its working size and of the socket buffers). The client reads in
 * a child process: in this one its buffers (tens of MiB of received chunks awaiting GC) were counted as the service's.
 */
async function streamed(api: ApiClient, url: string) {
  const stop = rssSampler();
  const reader = spawn(process.execPath, ['--input-type=module', '-e', READER, `${api.base}${url}`, api.token], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let bytes = 0;
  let end = { first: 0, total: 0, bytes: 0 };
  const samples: [number, number][] = [];
  const timer = setInterval(() => samples.push([bytes, process.memoryUsage.rss()]), 20);
  for await (const line of readline.createInterface({ input: reader.stdout })) {
    if (line.startsWith('{')) end = JSON.parse(line) as typeof end;
    else bytes = Number(line);
  }
  clearInterval(timer);
  const rss = stop();
  const peakOf = (xs: [number, number][]) => Math.max(0, ...xs.map(([, r]) => r));
  const early = samples.filter(([b]) => b <= end.bytes / 10);
  const late = samples.filter(([b]) => b > end.bytes / 10);
  const lateGrowth = early.length && late.length ? Math.max(0, peakOf(late) - peakOf(early)) / MiB : 0;
  return `TTFB ${ms(end.first)}, total ${ms(end.total)}, ${(end.bytes / MiB).toFixed(1)} MiB, RSS +${rss.growth.toFixed(1)} MiB (+${lateGrowth.toFixed(1)} MiB after the first tenth)`;
}

/**
 * The collection once its run ended. Its GET carries the filters, which name every custodian: polled every 100 ms at
 * 10,000 custodians, the bench's own reads cost the service (in this process) about as much as the run, so the poll
 * slows to once a second from 1,000 custodians.
 */
async function settled(api: ApiClient, col: string, users: number): Promise<Record<string, any>> {
  for (const deadline = Date.now() + 3_600_000; ;) {
    const c = (await api.call('GET', `/v1/collections/${col}`)).body as Record<string, any>;
    if (['synced', 'failed', 'error'].includes(c.sync_status as string)) return c;
    if (Date.now() > deadline) throw new Error(`timed out in ${c.sync_status}`);
    await new Promise((r) => setTimeout(r, Math.min(1000, Math.max(100, users))));
  }
}

async function oneSize(kind: 'sqlite' | 'postgres', size: number): Promise<Out> {
  // each figure is printed as soon as it is measured
  const out: Out = new Proxy<Out>(
    {},
    {
      set(target, key, value: string) {
        console.log(`${String(key)}: ${value}`);
        target[String(key)] = value;
        return true;
      },
    },
  );
  const tag = `scale-items ${kind} ${size}`;
  const syncItems = Math.min(size, SYNC_ITEMS);
  const users = Math.max(1, Math.round(syncItems / FILES_PER_CUSTODIAN));
  const ms365 = await graphSandbox(users);
  const store = await freshStore(kind);
  const config = loadConfig({
    DATA_DIR: store.dataDir,
    LOG_LEVEL: 'silent',
    CUSTODY_SECRET_KEY: 's'.repeat(40),
    PORT: '0',
    ...unboundGraphEnv(ms365.info),
    // BENCH_WORKER_CONCURRENCY: units at once (default: the service's)
    WORKER_CONCURRENCY: process.env.BENCH_WORKER_CONCURRENCY,
    // DATABASE_PREPARED_STATEMENTS=false: the baseline of statements sent unnamed
    DATABASE_PREPARED_STATEMENTS: process.env.DATABASE_PREPARED_STATEMENTS,
    ZOOM_CLIENT_ID: 'unused',
    ...store.env,
  });
  const { runtime, api } = await startBenchApi(config, { workers: true, redirect: REDIRECT });
  try {
    const col = await api.collection('edrive');
    await api.pair(col, 'edrive', REDIRECT);
    const all = { all_selected: true, selected: [], excluded: [], filter_type: 'user_folders', filter_name: 'Drive' };
    const patched = await api.call('PATCH', `/v1/collections/${col}`, {
      sync_filters: Object.fromEntries(ms365.info.userIds.map((u) => [u, all])),
    });
    // a refused PATCH (413 over the route's body limit, 422) would leave a run that never starts: stop here
    if (patched.status !== 204) throw new Error(`PATCH sync_filters for ${users} custodians: ${patched.status}`);
    // 1. a real first sync through the simulator
    const stop = rssSampler();
    const cpu = cpuSampler(ms365.pid, store.database);
    let t0 = performance.now();
    await api.call('POST', `/v1/collections/${col}/start`);
    const done = await settled(api, col, users);
    const first = (performance.now() - t0) / 1000;
    const rss = stop();
    const n = done.latest_run.counters.collected as number;
    out[`${tag}: sync`] =
      `${done.sync_status}; ${n} items of ${users} custodians in ${first.toFixed(1)} s = ${(n / first).toFixed(0)} items/s, RSS peak ${rss.peak.toFixed(0)} MiB (+${rss.growth.toFixed(0)}${rss.kept}); ${cpu(users)}`;
    // 2. a no-change re-run
    const before = await ms365.requests();
    t0 = performance.now();
    await api.call('POST', `/v1/collections/${col}/start`);
    const again = await settled(api, col, users);
    const rerun = (performance.now() - t0) / 1000;
    const after = await ms365.requests();
    const delta = (h: string) => (after[h] ?? 0) - (before[h] ?? 0);
    const routes = Object.keys(after)
      .filter((k) => k.startsWith('graph ') && delta(k) > 0)
      .map((k) => `${delta(k)} ${k.slice(6)}`);
    out[`${tag}: no-change re-run`] =
      `${again.sync_status}; ${rerun.toFixed(2)} s, ${delta('graph')} Graph requests for ${users} custodians (${routes.join(', ')}), ${delta('download')} downloads, ${again.latest_run.counters.collected} collected`;
    const runId = again.latest_run.onna_id as string;
    // 3. the rest of the size seeded through the store (the same collection, many custodians of 100 items)
    const db = runtime.ctx.db;
    if (size > n) {
      t0 = performance.now();
      await seedItems(db, col, size - n);
      out[`${tag}: seeded through the store`] =
        `${size - n} items in ${((performance.now() - t0) / 1000).toFixed(1)} s (not a sync: rows and search documents written by the repositories)`;
    }
    // PostgreSQL plans from statistics that autovacuum refreshes within a minute or so of a bulk write; right after
    // one the planner still thinks the collection is empty (and drives a rare-term search from every item)
    if (kind === 'postgres') await sql`analyze`.execute(db);
    const bytes = await dbBytes(db, kind, store.dataDir);
    out[`${tag}: database`] = `${(bytes / MiB).toFixed(1)} MiB = ${(bytes / size / 1024).toFixed(2)} KiB/item`;
    // BENCH_ONLY=manifest: the manifest alone (with BENCH_SYNC_ITEMS=50, the sync is over in seconds)
    if (process.env.BENCH_ONLY === 'manifest') {
      out[`${tag}: manifest JSON`] = await streamed(api, `/v1/collections/${col}/manifest?format=json`);
      out[`${tag}: manifest CSV`] = await streamed(api, `/v1/collections/${col}/manifest?format=csv`);
      return out;
    }
    // 4. items pages
    const items = `/v1/collections/${col}/items`;
    const firstPage = await timed(40, () => api.call('GET', `${items}?limit=50`));
    const deep = await db
      .selectFrom('items')
      .select(['first_seen_at', 'id'])
      .where('collection_id', '=', col)
      .orderBy('first_seen_at')
      .orderBy('id')
      .offset(Math.floor(size * 0.95))
      .limit(1)
      .executeTakeFirstOrThrow();
    const deepCursor = encodeCursor(deep.first_seen_at, deep.id);
    const deepPage = await timed(40, () => api.call('GET', `${items}?limit=50&cursor=${deepCursor}`));
    out[`${tag}: items first page`] = `p50 ${ms(firstPage.p50)}, p99 ${ms(firstPage.p99)}`;
    out[`${tag}: items deep page (95 %)`] = `p50 ${ms(deepPage.p50)}, p99 ${ms(deepPage.p99)}`;
    const custodian = await timed(40, () => api.call('GET', `${items}?limit=50&custodian=seed-custodian-7`));
    const byKind = await timed(40, () => api.call('GET', `${items}?limit=50&kind=message`));
    out[`${tag}: items filtered`] = `custodian p99 ${ms(custodian.p99)}, kind p99 ${ms(byKind.p99)}`;
    // 5. search, and beside it every match counted and ranked (as before the result window), without HTTP
    const search = (query: string) => () =>
      api.call('POST', '/v1/search', { query, collection_ids: [col], size: 20 }).then((r) => {
        if (r.status !== 200) throw new Error(`search ${r.status}`);
        return r.body as { total: number; total_relation: string };
      });
    const common = await timed(20, search('quarterly'));
    const rare = await timed(20, search('zebrafish'));
    const [c, r] = [await search('quarterly')(), await search('zebrafish')()];
    out[`${tag}: search`] =
      `common term p50 ${ms(common.p50)} p95 ${ms(common.p95)} (total ${c.total} ${c.total_relation}); rare term p50 ${ms(rare.p50)} p95 ${ms(rare.p95)} (total ${r.total} ${r.total_relation})`;
    // filtered: kinds and custodians are terms of the full-text query; a date filter (here one every item passes)
    // still looks up each candidate's item row, as every item-level filter did before: the baseline beside it
    const filtered = (extra: Record<string, unknown>) => () =>
      api.call('POST', '/v1/search', { query: 'quarterly', collection_ids: [col], size: 20, ...extra }).then((r) => {
        if (r.status !== 200) throw new Error(`search ${r.status}`);
        return r.body as { total: number; total_relation: string };
      });
    const since = { date_from: '2000-01-01' };
    const filters: Record<string, Record<string, unknown>> = {
      'kinds [file]': { kinds: ['file'] },
      'custodians [seed-custodian-7]': { custodians: ['seed-custodian-7'] },
      'kinds [folder] + custodians [seed-custodian-7]': { kinds: ['folder'], custodians: ['seed-custodian-7'] },
    };
    for (const [label, f] of Object.entries(filters)) {
      const now = await timed(20, filtered(f));
      const lookup = await timed(10, filtered({ ...f, ...since }));
      const [a, b] = [await filtered(f)(), await filtered({ ...f, ...since })()];
      out[`${tag}: search common term, ${label}`] =
        `p50 ${ms(now.p50)} p95 ${ms(now.p95)} (total ${a.total} ${a.total_relation}); with date_from (item rows looked up, baseline) p50 ${ms(lookup.p50)} p95 ${ms(lookup.p95)} (total ${b.total} ${b.total_relation})`;
    }
    const account = await db
      .selectFrom('collections')
      .select('account_id')
      .where('id', '=', col)
      .executeTakeFirstOrThrow();
    const unbounded = await timed(5, () =>
      searchItems(
        db,
        account.account_id,
        { query: 'quarterly', collection_ids: [col], size: 20 },
        { kinds: ['file', 'folder'], window: 1_000_000_000 },
      ),
    );
    out[`${tag}: search common term, every match counted and ranked (baseline, no HTTP)`] =
      `p50 ${ms(unbounded.p50)} p95 ${ms(unbounded.p95)} (5 runs)`;
    // 6. manifest
    out[`${tag}: manifest JSON`] = await streamed(api, `/v1/collections/${col}/manifest?format=json`);
    out[`${tag}: manifest CSV`] = await streamed(api, `/v1/collections/${col}/manifest?format=csv`);
    // 7. reconciliation, console page
    const rec = await timed(10, () => api.call('GET', `/v1/collections/${col}/runs/${runId}/reconciliation`));
    out[`${tag}: reconciliation`] = `p50 ${ms(rec.p50)}`;
    const page = await timed(10, () =>
      Promise.all([
        api.call('GET', `/v1/collections/${col}`),
        api.call('GET', `/v1/collections/${col}/runs?limit=20`),
        api.call('GET', `${items}?limit=50`),
      ]),
    );
    out[`${tag}: console collection page`] =
      `p50 ${ms(page.p50)}, p99 ${ms(page.p99)} (collection, its runs, the items tab's first page, in parallel)`;
  } finally {
    await runtime.close();
    ms365.close();
    await store.drop();
    fs.rmSync(store.dataDir, { recursive: true, force: true });
  }
  return out;
}

/**
 * `npm run bench -- scale-items [sizes…]` (default 10000 100000): per size and store (SQLite, then PostgreSQL when
 * BENCH_DATABASE_URL or TEST_DATABASE_URL is set; BENCH_STORES=sqlite limits it), a real edrive sync of up to
 * BENCH_SYNC_ITEMS tiny files (50 per custodian) through the Graph simulator, a no-change re-run, then the rest of
 * the size seeded through the store (then ANALYZE on PostgreSQL), and the read costs over the whole collection. Prints figures only.
 */
export async function benchScaleItems(sizes: number[]): Promise<Out> {
  const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres')
    .split(',')
    .filter((s): s is 'sqlite' | 'postgres' => s === 'sqlite' || s === 'postgres')
    .filter((s) => s === 'sqlite' || process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL);
  // idle sockets are dropped before the server could close them under a request (seeding leaves them idle long)
  setGlobalDispatcher(new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 }));
  for (const size of sizes)
    for (const kind of stores) {
      try {
        await oneSize(kind, size);
      } catch (err) {
        console.log(`scale-items ${kind} ${size}: failed: ${(err as Error).stack}`);
      }
    }
  return {};
}
