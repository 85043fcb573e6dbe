import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import readline from 'node:readline';
import { Agent, setGlobalDispatcher } from 'undici';
import { loadConfig } from '../src/config.ts';
import { writerTuning } from '../src/sync/execution/item-writer.ts';
import { startBenchApi } from './flow.ts';
import { mainThreadCpuMs } from './proc-cpu.ts';
import { cpuSampler, freshStore, unboundGraphEnv } from './scale-items.ts';

const REDIRECT = 'http://127.0.0.1:9/bench-callback';
const FILES_PER_CUSTODIAN = 50;
type Store = 'sqlite' | 'postgres';
type Mode = 'per-item' | 'inline' | 'batched';
/**
 * `text`: plain text OneDrive files only; `mixed`: the Graph sandbox's mix, a quarter of it Office documents and PDFs
 * to extract; `chat`: Zoom channel messages (up to 50 per provider request, none downloaded one by one).
 */
type Files = 'text' | 'mixed' | 'chat';
/** Messages per Zoom channel of `chat`, and the account's users (each channel has some of them as members). */
const MESSAGES_PER_CHANNEL = 500;
const CHAT_USERS = 20;

/**
 * A simulator in a child process (its CPU is not the service's): `script` prints its addresses as one JSON line, and
 * answers each line on stdin with its requests so far, by host or route.
 */
async function sandboxChild<Info>(script: string, args: Array<string | number>) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, script), ...args.map(String)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = readline.createInterface({ input: child.stdout! });
  const info = JSON.parse(
    await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
    }),
  ) as Info;
  const requests = () =>
    new Promise<Record<string, number>>((resolve) => {
      lines.once('line', (l) => resolve(JSON.parse(l) as Record<string, number>));
      child.stdin!.write('\n');
    });
  return { info, requests, pid: child.pid, close: () => child.kill('SIGTERM') };
}

const graphSandbox = (users: number, files: Files) =>
  sandboxChild<{ loginUrl: string; graphUrl: string; clientId: string; clientSecret: string; userIds: string[] }>(
    'scale-items-sandbox.ts',
    [users, FILES_PER_CUSTODIAN, files],
  );

/** The simulator of a first sync of about `size` items, the service's settings for it, and the collection's filters. */
async function source(size: number, files: Files) {
  if (files === 'chat') {
    const zoom = await sandboxChild<{ clientId: string; clientSecret: string; oauthUrl: string; apiUrl: string }>(
      'zoom-chat-sandbox-child.ts',
      [CHAT_USERS, Math.max(1, Math.round(size / MESSAGES_PER_CHANNEL)), MESSAGES_PER_CHANNEL],
    );
    const all = { all_selected: true, selected: [], excluded: [] };
    return {
      sandbox: zoom,
      type: 'conf' as const,
      env: {
        ZOOM_CLIENT_ID: zoom.info.clientId,
        ZOOM_CLIENT_SECRET: zoom.info.clientSecret,
        ZOOM_OAUTH_URL: zoom.info.oauthUrl,
        ZOOM_API_URL: zoom.info.apiUrl,
        // a budget that does not bind: what is measured is Custody's own cost per item
        ZOOM_REQUESTS_PER_SECOND: '100000',
        ZOOM_MAX_REQUESTS_PER_SECOND: '100000',
        ZOOM_CONCURRENCY: '32', // the most: each process starts at 16 (budget-leases.ts)
        MS_CLIENT_ID: 'unused',
      },
      filters: { type_sync: 'arch', sync_filters: { account_owners: all, content_selections: all, chats: all } },
      hosts: ['api'],
    };
  }
  const ms365 = await graphSandbox(Math.max(1, Math.round(size / FILES_PER_CUSTODIAN)), files);
  const all = { all_selected: true, selected: [], excluded: [], filter_type: 'user_folders', filter_name: 'Drive' };
  return {
    sandbox: ms365,
    type: 'edrive' as const,
    env: {
      ...unboundGraphEnv(ms365.info),
      ZOOM_CLIENT_ID: 'unused',
    },
    filters: { sync_filters: Object.fromEntries(ms365.info.userIds.map((u) => [u, all])) },
    hosts: ['graph', 'download'],
  };
}

/**
 * One first sync of about `size` small items (OneDrive files, 50 per custodian, through the Graph simulator; or
 * Zoom channel messages); items/s and CPU ms per item.
 */
async function oneSync(kind: Store, size: number, mode: Mode, files: Files, blobDb: string): Promise<string> {
  const src = await source(size, files);
  const store = await freshStore(kind, 'custody-bench-small-items-');
  const config = loadConfig({
    DATA_DIR: store.dataDir,
    LOG_LEVEL: 'silent',
    CUSTODY_SECRET_KEY: 's'.repeat(40),
    PORT: '0',
    ...src.env,
    BLOB_DB_MAX_BYTES: blobDb,
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
    const col = await api.collection(src.type);
    await api.pair(col, src.type, REDIRECT);
    await api.call('PATCH', `/v1/collections/${col}`, src.filters);
    const req0 = await src.sandbox.requests();
    const profile = await startProfile(`${kind}-${size}-${files}-${mode}-db${blobDb}`);
    const cpu0 = process.cpuUsage();
    const everyone = cpuSampler(src.sandbox.pid, store.database);
    const main0 = mainThreadCpuMs();
    const t0 = performance.now();
    await api.call('POST', `/v1/collections/${col}/start`);
    const done = await api.waitFor(col, ['synced', 'failed', 'error'], 3_600_000);
    const secs = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const main1 = mainThreadCpuMs();
    await profile();
    const n = done.latest_run.counters.collected as number;
    const busy =
      main0 === null || main1 === null ? '' : `; main thread ${((main1 - main0) / 1000 / secs).toFixed(2)} cores`;
    console.log(`${kind} ${size}: ${everyone(n, 'item')}${busy}`);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const perItem = (us: number) => (us / 1000 / n).toFixed(2);
    const req1 = await src.sandbox.requests();
    const reqs = (h: string) => `${h} ${(((req1[h] ?? 0) - (req0[h] ?? 0)) / n).toFixed(2)}`;
    console.log(`${kind} ${size}: provider requests per item: ${src.hosts.map(reqs).join(', ')}`);
    if (process.env.BENCH_ROUTES)
      for (const h of Object.keys(req1).filter((k) => k.includes(' '))) console.log(`  ${reqs(h)}`);
    return `${done.sync_status}; ${n} items in ${secs.toFixed(1)} s = ${(n / secs).toFixed(0)} items/s, CPU ${(cpuMs / n).toFixed(2)} ms/item (user ${perItem(cpu.user)}, system ${perItem(cpu.system)}; ${(cpuMs / 1000 / secs).toFixed(2)} cores)`;
  } finally {
    writerTuning.perItem = false;
    writerTuning.inline = false;
    await runtime.close();
    src.sandbox.close();
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
 * (the service; the simulator runs in a child). BENCH_MODES=batched skips the baseline. BENCH_FILES=text|mixed|chat
 * picks the items (default text,mixed): plain text files, the sandbox's mix with Office documents and PDFs whose text
 * is extracted, or Zoom channel messages (`size` of them, 500 per channel). Each sync also prints the CPU per item of
 * the service, the simulator and PostgreSQL's backends, and how busy the main thread was; BENCH_ROUTES=1 the Graph
 * simulator's requests per item by route.
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
    .filter((f): f is Files => f === 'text' || f === 'mixed' || f === 'chat');
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
