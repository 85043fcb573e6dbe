import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { sharedHashPool } from '../src/blobs/index.ts';
import { loadConfig } from '../src/config.ts';
import { S3_TEST_BUCKET, S3_TEST_CREDENTIALS } from '../test/support/s3.ts';
import { startBenchApi } from './flow.ts';

const REDIRECT = 'http://127.0.0.1:9/bench-callback';

/** Starts a bench child (`<name>-child.ts`) and returns it with the JSON line it prints once ready. */
async function child<T>(
  name: string,
  args: string[] = [],
): Promise<{ proc: ChildProcess; info: T; nextLine(): Promise<string> }> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, `${name}-child.ts`), ...args],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = readline.createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  const nextLine = async () => {
    const next = await lines.next();
    if (next.done) throw new Error(`${name} exited ${proc.exitCode}`);
    return next.value;
  };
  return { proc, info: JSON.parse(await nextLine()) as T, nextLine };
}

function rssSampler() {
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  return () => {
    clearInterval(timer);
    return { startMb: start / 1048576, growthMb: (Math.max(peak, process.memoryUsage().rss) - start) / 1048576 };
  };
}

export interface BigFileSync {
  status: string;
  /** RSS the hashing threads added when they started (at boot, as in `custody serve`). */
  poolMb: number;
  /** RSS growth during a first sync of the same collection without the big file (the service's first run). */
  firstRunMb: number;
  seconds: number;
  rssStartMb: number;
  rssGrowthMb: number;
  verified: unknown;
  size: unknown;
}

/**
 * One OneDrive file of `mb` MiB synced through the whole service (Graph download, quickXorHash, SHA-256, MD5, the
 * blob store), the simulator and the S3 server each in their own process so the service's RSS is measured alone.
 * A first run collects the drive before the big file is added (the service's first-run costs: code, connections,
 * caches); the measured run is the next one, which collects the big file.
 */
export async function syncBigFile(mb: number, store: 'fs' | 's3'): Promise<BigFileSync> {
  const ms = await child<{
    loginUrl: string;
    graphUrl: string;
    clientId: string;
    clientSecret: string;
    userId: string;
  }>('ms-sandbox', [String(mb), 'later']);
  const s3 = store === 's3' ? await child<{ endpoint: string }>('s3rver') : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-bigfile-'));
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  try {
    // The S3 client reads its credentials from the AWS chain, as in production.
    if (s3)
      Object.assign(process.env, {
        AWS_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
      });
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      CUSTODY_SECRET_KEY: 's'.repeat(40),
      PORT: '0',
      MS_CLIENT_ID: ms.info.clientId,
      MS_CLIENT_SECRET: ms.info.clientSecret,
      MS_LOGIN_URL: ms.info.loginUrl,
      MS_GRAPH_URL: ms.info.graphUrl,
      ZOOM_CLIENT_ID: 'unused',
      ...(s3 && {
        BLOB_STORE: 's3',
        S3_BUCKET: S3_TEST_BUCKET,
        S3_ENDPOINT: s3.info.endpoint,
        S3_REGION: 'us-east-1',
        S3_FORCE_PATH_STYLE: 'true',
      }),
    });
    const { runtime, api } = await startBenchApi(config, { workers: true, redirect: REDIRECT });
    try {
      const col = await api.collection('edrive');
      await api.pair(col, 'edrive', REDIRECT);
      await api.call('PATCH', `/v1/collections/${col}`, {
        sync_filters: {
          [ms.info.userId]: {
            all_selected: true,
            selected: [],
            excluded: [],
            filter_type: 'user_folders',
            filter_name: 'User drive',
          },
        },
      });
      // As `custody serve` does in a process with workers.
      const booted = process.memoryUsage().rss;
      await sharedHashPool().warm();
      const poolMb = (process.memoryUsage().rss - booted) / 1048576;
      const first = rssSampler();
      await api.call('POST', `/v1/collections/${col}/start`);
      await api.waitFor(col, ['synced', 'failed', 'error'], 600_000);
      const firstRunMb = first().growthMb;
      ms.proc.stdin!.write('add\n');
      if ((await ms.nextLine()) !== 'added') throw new Error('the simulator did not add the big file');
      const stop = rssSampler();
      const t0 = performance.now();
      await api.call('POST', `/v1/collections/${col}/start`);
      const done = await api.waitFor(col, ['synced', 'failed', 'error'], 1_800_000);
      const seconds = (performance.now() - t0) / 1000;
      const rss = stop();
      const items = await api.call('GET', `/v1/collections/${col}/items?kind=file&limit=200`);
      const big = items.body.items.find((i: { name: string }) => i.name === 'big-evidence.bin');
      return {
        status: done.sync_status,
        poolMb,
        firstRunMb,
        seconds,
        rssStartMb: rss.startMb,
        rssGrowthMb: rss.growthMb,
        verified: big?.hash_verified,
        size: big?.size,
      };
    } finally {
      await runtime.close();
    }
  } finally {
    if (s3) Object.assign(process.env, { AWS_ACCESS_KEY_ID: saved.id, AWS_SECRET_ACCESS_KEY: saved.secret });
    fs.rmSync(dataDir, { recursive: true, force: true });
    s3?.proc.kill('SIGTERM');
    ms.proc.kill('SIGTERM');
  }
}

/** The same in a process of its own (a fresh service), so nothing an earlier bench started is counted or hidden. */
export async function syncBigFileInChild(mb: number, store: 'fs' | 's3'): Promise<BigFileSync> {
  const proc = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, String(mb), store], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
  const last = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || !last.startsWith('{')) throw new Error(`big file sync into ${store} exited ${code}: ${last}`);
  return JSON.parse(last) as BigFileSync;
}

// `npx tsx bench/bigfile.ts <MiB> <fs|s3>`: one sync, its figures as a JSON line.
if (import.meta.url === `file://${process.argv[1]}`) {
  const [mb, store] = [Number(process.argv[2] ?? 1024), (process.argv[3] ?? 'fs') as 'fs' | 's3'];
  console.log(JSON.stringify(await syncBigFile(mb, store)));
  process.exit(0);
}
