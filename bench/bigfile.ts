import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { sharedHashPool, type BlobStore } from '../src/blobs/index.ts';
import { loadConfig } from '../src/config.ts';
import { QUICK_XOR_MODULE, QuickXorHash } from '../src/connectors/onedrive/quickxorhash.ts';
import { S3_TEST_BUCKET, S3_TEST_CREDENTIALS } from '../test/support/s3.ts';
import { startBenchApi } from './flow.ts';

const REDIRECT = 'http://127.0.0.1:9/bench-callback';

/** Starts a bench child (`<name>-child.ts`) and returns it with the JSON line it prints once ready. */
async function child<T>(name: string, args: string[] = []): Promise<{ proc: ChildProcess; info: T }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, `${name}-child.ts`), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: proc.stdout! }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`${name} exited ${code}`)));
  });
  return { proc, info: JSON.parse(line) as T };
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
  seconds: number;
  rssStartMb: number;
  rssGrowthMb: number;
  verified: unknown;
  size: unknown;
}

/**
 * One OneDrive file of `mb` MiB synced through the whole service (Graph download, quickXorHash, SHA-256, MD5, the
 * blob store), the simulator and the S3 server each in their own process so the service's RSS is measured alone.
 * The service is warmed with a small sync first, so the figure is what the big file adds.
 */
export async function syncBigFile(mb: number, store: 'fs' | 's3', opts: { warm?: boolean } = {}): Promise<BigFileSync> {
  const ms = await child<{ loginUrl: string; graphUrl: string; clientId: string; clientSecret: string; userId: string }>('ms-sandbox', [String(mb)]);
  const s3 = store === 's3' ? await child<{ endpoint: string }>('s3rver') : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-bigfile-'));
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  try {
    // The S3 client reads its credentials from the AWS chain, as in production.
    if (s3) Object.assign(process.env, { AWS_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey });
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
      ...(s3 && { BLOB_STORE: 's3', S3_BUCKET: S3_TEST_BUCKET, S3_ENDPOINT: s3.info.endpoint, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true' }),
    });
    const { runtime, api } = await startBenchApi(config, { workers: true, redirect: REDIRECT });
    try {
      const col = await api.collection('edrive');
      await api.pair(col, 'edrive', REDIRECT);
      await api.call('PATCH', `/v1/collections/${col}`, {
        sync_filters: { [ms.info.userId]: { all_selected: true, selected: [], excluded: [], filter_type: 'user_folders', filter_name: 'User drive' } },
      });
      // As `custody serve` does in a process with workers.
      const booted = process.memoryUsage().rss;
      await sharedHashPool().warm();
      const poolMb = (process.memoryUsage().rss - booted) / 1048576;
      if (opts.warm) await warmUp(runtime.ctx.blobs);
      const stop = rssSampler();
      const t0 = performance.now();
      await api.call('POST', `/v1/collections/${col}/start`);
      const done = await api.waitFor(col, ['synced', 'failed', 'error'], 1_800_000);
      const seconds = (performance.now() - t0) / 1000;
      const rss = stop();
      const items = await api.call('GET', `/v1/collections/${col}/items?kind=file&limit=200`);
      const big = items.body.items.find((i: { name: string }) => i.name === 'big-evidence.bin');
      return { status: done.sync_status, poolMb, seconds, rssStartMb: rss.startMb, rssGrowthMb: rss.growthMb, verified: big?.hash_verified, size: big?.size };
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

/** Pays the one-off costs of a large blob (hashing threads and their code, part buffers) before measuring. */
async function warmUp(blobs: BlobStore): Promise<void> {
  const writer = await blobs.writer({ hashers: { quickXorHash: Object.assign(() => new QuickXorHash(), { threaded: QUICK_XOR_MODULE }) } });
  const chunk = Buffer.alloc(64 * 1024, 7);
  for (let i = 0; i < 320; i++) await writer.write(chunk);
  await blobs.delete((await writer.commit()).sha256);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [mb, store, warm] = [Number(process.argv[2] ?? 1024), (process.argv[3] ?? 'fs') as 'fs' | 's3', process.argv[4] === 'warm'];
  console.log(store, mb, warm ? 'warm' : 'cold', JSON.stringify(await syncBigFile(mb, store, { warm })));
  process.exit(0);
}
