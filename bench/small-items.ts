import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import readline from 'node:readline';
import { Agent, setGlobalDispatcher } from 'undici';
import { loadConfig } from '../src/config.ts';
import { writerTuning } from '../src/sync/execution/item-writer.ts';
import { startBenchApi } from './flow.ts';
import { freshStore } from './scale-items.ts';

const REDIRECT = 'http://127.0.0.1:9/bench-callback';
const FILES_PER_CUSTODIAN = 50;
type Store = 'sqlite' | 'postgres';
type Mode = 'per-item' | 'inline' | 'batched';
/** `text`: plain text files only; `mixed`: the sandbox's mix, a quarter of it Office documents and PDFs to extract. */
type Files = 'text' | 'mixed';

async function graphSandbox(users: number, files: Files) {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(import.meta.dirname, 'scale-items-sandbox.ts'),
      String(users),
      String(FILES_PER_CUSTODIAN),
      files,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = readline.createInterface({ input: child.stdout! });
  const info = JSON.parse(
    await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
    }),
  ) as { loginUrl: string; graphUrl: string; clientId: string; clientSecret: string; userIds: string[] };
  // dlurl: the simulator's requests so far by host (scale-items-sandbox.ts answers a line on stdin with them)
  const requests = () =>
    new Promise<Record<string, number>>((resolve) => {
      lines.once('line', (l) => resolve(JSON.parse(l) as Record<string, number>));
      child.stdin!.write('\n');
    });
  return { info, requests, close: () => child.kill('SIGTERM') };
}

/** One first sync of `size` tiny files (50 per custodian) through the Graph simulator; items/s and CPU ms per item. */
async function oneSync(kind: Store, size: number, mode: Mode, files: Files, blobDb: string): Promise<string> {
  const users = Math.max(1, Math.round(size / FILES_PER_CUSTODIAN));
  const ms365 = await graphSandbox(users, files);
  const store = await freshStore(kind, 'custody-bench-small-items-');
  const config = loadConfig({
    DATA_DIR: store.dataDir,
    LOG_LEVEL: 'silent',
    CUSTODY_SECRET_KEY: 's'.repeat(40),
    PORT: '0',
    MS_CLIENT_ID: ms365.info.clientId,
    MS_CLIENT_SECRET: ms365.info.clientSecret,
    MS_LOGIN_URL: ms365.info.loginUrl,
    MS_GRAPH_URL: ms365.info.graphUrl,
    // a budget that does not bind: what is measured is Custody's own cost per item
    MS_RESOURCE_UNITS_PER_SECOND: '100000',
    MS_MAX_RESOURCE_UNITS_PER_SECOND: '100000',
    MS_CONCURRENCY: '32',
    BLOB_DB_MAX_BYTES: blobDb,
    ZOOM_CLIENT_ID: 'unused',
    // BENCH_WORKER_CONCURRENCY: units at once per worker (default: the service's)
    WORKER_CONCURRENCY: process.env.BENCH_WORKER_CONCURRENCY,
    // DATABASE_PREPARED_STATEMENTS=false: the baseline of statements sent unnamed
    DATABASE_PREPARED_STATEMENTS: process.env.DATABASE_PREPARED_STATEMENTS,
    ...store.env,
  });
  writerTuning.perItem = mode === 'per-item';
  writerTuning.inline = mode === 'inline';
  const { runtime, api } = await startBenchApi(config, { workers: true, redirect: REDIRECT });
  try {
    const col = await api.collection('edrive');
    await api.pair(col, 'edrive', REDIRECT);
    const all = { all_selected: true, selected: [], excluded: [], filter_type: 'user_folders', filter_name: 'Drive' };
    await api.call('PATCH', `/v1/collections/${col}`, {
      sync_filters: Object.fromEntries(ms365.info.userIds.map((u) => [u, all])),
    });
    const req0 = await ms365.requests();
    const profile = await startProfile(`${kind}-${size}-${files}-${mode}-db${blobDb}`);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await api.call('POST', `/v1/collections/${col}/start`);
    const done = await api.waitFor(col, ['synced', 'failed', 'error'], 3_600_000);
    const secs = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await profile();
    const n = done.latest_run.counters.collected as number;
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const perItem = (us: number) => (us / 1000 / n).toFixed(2);
    const req1 = await ms365.requests();
    const reqs = (h: string) => `${h} ${(((req1[h] ?? 0) - (req0[h] ?? 0)) / n).toFixed(2)}`;
    console.log(`${kind} ${size}: provider requests per item: ${reqs('graph')}, ${reqs('download')}`);
    return `${done.sync_status}; ${n} items in ${secs.toFixed(1)} s = ${(n / secs).toFixed(0)} items/s, CPU ${(cpuMs / n).toFixed(2)} ms/item (user ${perItem(cpu.user)}, system ${perItem(cpu.system)}; ${(cpuMs / 1000 / secs).toFixed(2)} cores)`;
  } finally {
    writerTuning.perItem = false;
    writerTuning.inline = false;
    await runtime.close();
    ms365.close();
    await store.drop();
    fs.rmSync(store.dataDir, { recursive: true, force: true });
  }
}

/** With BENCH_CPU_PROF=<dir>: the main thread's V8 CPU profile of the sync alone (not set-up or clean-up). */
async function startProfile(name: string): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return async () => undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `small-items-${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * `npm run bench -- small-items [sizes…]` (default 2000 20000): per size and store (SQLite, then PostgreSQL when
 * BENCH_DATABASE_URL or TEST_DATABASE_URL is set; BENCH_STORES=sqlite limits it), a real first edrive sync of tiny
 * files through the Graph simulator (no latency, a budget that does not bind), once with the item writer's old
 * per-item path (a transaction and a blob fsync per item with content), once batched as before the search text
 * was taken off the writer's path and lookups were batched (`inline`: a text and a lookup awaited per item), and
 * once batched. CPU is this process's
 * (the service; the simulator runs in a child). BENCH_MODES=batched skips the baseline. BENCH_FILES=text|mixed picks
 * the files (default both): plain text, or the sandbox's mix with Office documents and PDFs whose text is extracted.
 * BENCH_CPU_PROF=<dir> writes each sync's CPU profile there. BENCH_BLOB_DB=<bytes,…> (default 0,16384): each sync once
 * per BLOB_DB_MAX_BYTES value, 0 being every blob a file (the layout before small blobs were kept in the database).
 * BENCH_WORKER_CONCURRENCY sets WORKER_CONCURRENCY (units at once; default the service's).
 */
export async function benchSmallItems(sizes: number[]): Promise<Record<string, string>> {
  const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres')
    .split(',')
    .filter((s): s is Store => s === 'sqlite' || s === 'postgres')
    .filter((s) => s === 'sqlite' || process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL);
  const modes = (process.env.BENCH_MODES ?? 'per-item,inline,batched')
    .split(',')
    .filter((m): m is Mode => m === 'per-item' || m === 'inline' || m === 'batched');
  const kinds = (process.env.BENCH_FILES ?? 'text,mixed')
    .split(',')
    .filter((f): f is Files => f === 'text' || f === 'mixed');
  // content kept in the database up to these sizes: 0 is every blob a file (the layout before migration 034)
  const blobDbs = (process.env.BENCH_BLOB_DB ?? '0,16384').split(',').filter((b) => /^\d+$/.test(b));
  setGlobalDispatcher(new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 }));
  for (const size of sizes)
    for (const kind of stores)
      for (const files of kinds)
        for (const mode of modes)
          for (const blobDb of blobDbs) {
            const tag = `small-items ${kind} ${size} ${files} ${mode} blob-db=${blobDb}`;
            try {
              console.log(`${tag}: ${await oneSync(kind, size, mode, files, blobDb)}`);
            } catch (err) {
              console.log(`${tag}: failed: ${(err as Error).stack}`);
            }
          }
  return {};
}
