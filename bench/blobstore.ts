import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import readline from 'node:readline';
import { Upload } from '@aws-sdk/lib-storage';
import { createFsBlobStore, createS3BlobStore, pipeToWriter } from '../src/blobs/index.ts';
import { S3_TEST_BUCKET, S3_TEST_CREDENTIALS } from '../test/support/s3.ts';
import { QUICK_XOR_MODULE, QuickXorHash } from '../src/connectors/onedrive/quickxorhash.ts';
import { syncBigFileInChild } from './bigfile.ts';

/** A synthetic download: `totalMb` MiB in 64 KiB chunks, every chunk a little different. */
function syntheticSource(totalMb: number): Readable {
  const chunk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31 + 7) & 0xff;
  let sent = 0;
  const total = totalMb * 1024 * 1024;
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      chunk[0] = sent & 0xff;
      sent += chunk.length;
      this.push(Buffer.from(chunk));
    },
  });
}

async function measure<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; rssGrowthMb: number }> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const started = process.hrtime.bigint();
  const result = await work();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  return { result, seconds, rssGrowthMb: (Math.max(rssPeak, process.memoryUsage().rss) - rssBefore) / 1024 / 1024 };
}

/** The baseline: one loop on one thread doing the same work as the store (stream, SHA-256, MD5, quickXorHash, write, fsync). */
async function singleLoop(totalMb: number, dir: string): Promise<number> {
  const file = await fs.promises.open(path.join(dir, 'loop.bin'), 'w');
  const sha = createHash('sha256');
  const md5 = createHash('md5');
  const qxh = new QuickXorHash();
  let size = 0;
  for await (const chunk of syntheticSource(totalMb) as AsyncIterable<Buffer>) {
    sha.update(chunk);
    md5.update(chunk);
    qxh.update(chunk);
    await file.write(chunk, 0, chunk.length, size);
    size += chunk.length;
  }
  await file.sync();
  await file.close();
  sha.digest();
  md5.digest();
  qxh.digest();
  return size;
}

/**
 * Streams a large synthetic file into the content store (SHA-256 + MD5 + quickXorHash, the OneDrive case) and
 * the same bytes through the single-threaded loop; prints both rates, their ratio and RSS growth.
 */
export async function benchBlobStore(totalMb: number): Promise<Record<string, string>> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-blobs-'));
  try {
    const quickXorHash = Object.assign(() => new QuickXorHash(), { threaded: QUICK_XOR_MODULE });
    const viaStore = (threads: boolean) => async () => {
      const store = createFsBlobStore({ root, hashing: { threads } });
      const writer = await store.writer({ hashers: { quickXorHash } });
      await pipeToWriter(syntheticSource(totalMb), writer);
      const blob = await writer.commit();
      await store.delete(blob.sha256);
      return blob.size;
    };
    const loop = await measure(() => singleLoop(totalMb, root));
    fs.rmSync(path.join(root, 'loop.bin'));
    const inline = await measure(viaStore(false));
    const threaded = await measure(viaStore(true));
    const total = totalMb * 1024 * 1024;
    const rate = (seconds: number) => `${(totalMb / seconds).toFixed(0)} MiB/s`;
    return {
      'blob: single-threaded loop (stream, sha256, md5, quickXorHash, write, fsync)': `${totalMb} MiB in ${loop.seconds.toFixed(2)} s = ${rate(loop.seconds)}`,
      'blob: store, hashing on the event loop': `${rate(inline.seconds)} = ${(loop.seconds / inline.seconds).toFixed(2)} of the loop, RSS growth ${inline.rssGrowthMb.toFixed(1)} MiB`,
      'blob: store, hashing on worker threads': `${rate(threaded.seconds)} = ${(loop.seconds / threaded.seconds).toFixed(2)} of the loop, RSS growth ${threaded.rssGrowthMb.toFixed(1)} MiB`,
      'blob: size check': [loop, inline, threaded].every((m) => m.result === total) ? 'ok' : 'MISMATCH',
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The same file into the S3 store, against s3rver in a child process: MiB/s and RSS growth, side by side with the
 * SDK's own streaming upload (lib-storage's Upload fed the same stream, no hashing) as the baseline.
 */
export async function benchS3BlobStore(totalMb: number): Promise<Record<string, string>> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 's3rver-child.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`s3rver exited ${code}`)));
    });
    const { endpoint } = JSON.parse(line) as { endpoint: string };
    const store = createS3BlobStore({
      bucket: S3_TEST_BUCKET,
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3_TEST_CREDENTIALS,
    });
    const quickXorHash = Object.assign(() => new QuickXorHash(), { threaded: QUICK_XOR_MODULE });
    // Warm up the client, the hashing threads and the code paths: one-off costs, not per byte.
    const warm = await store.writer({ hashers: { quickXorHash } });
    await pipeToWriter(syntheticSource(16), warm);
    await warm.commit();
    const sdk = await measure(async () => {
      const upload = new Upload({
        client: store.client,
        params: { Bucket: S3_TEST_BUCKET, Key: 'bench/lib-storage', Body: syntheticSource(totalMb) },
        partSize: 8 << 20,
        queueSize: 4,
      });
      await upload.done();
      return totalMb * 1024 * 1024;
    });
    const run = await measure(async () => {
      const writer = await store.writer({ hashers: { quickXorHash } });
      await pipeToWriter(syntheticSource(totalMb), writer);
      return writer.commit();
    });
    store.client.destroy();
    const rate = (seconds: number) => `${(totalMb / seconds).toFixed(0)} MiB/s`;
    return {
      'blob: S3 baseline, lib-storage Upload of the stream (8 MiB parts, 4 in flight, no hashing)': `${totalMb} MiB in ${sdk.seconds.toFixed(2)} s = ${rate(sdk.seconds)}, RSS growth ${sdk.rssGrowthMb.toFixed(1)} MiB`,
      'blob: S3 store (8 MiB part buffers, 4 in flight, sha256 + md5 + quickXorHash, verified + copied)': `${totalMb} MiB in ${run.seconds.toFixed(2)} s = ${rate(run.seconds)}, RSS growth ${run.rssGrowthMb.toFixed(1)} MiB`,
      'blob: S3 size check': run.result.size === totalMb * 1024 * 1024 ? 'ok' : `MISMATCH ${run.result.size}`,
    };
  } finally {
    child.kill('SIGTERM');
  }
}

/**
 * One OneDrive file synced through the whole service into each store (see bigfile.ts): the honest measure of
 * memory per file, with the goals beside it.
 */
export async function benchBigFileSyncs(totalMb: number): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [store, goal] of [
    ['fs', 64],
    ['s3', 128],
  ] as const) {
    const r = await syncBigFileInChild(totalMb, store);
    out[`blob: sync of one ${totalMb} MiB OneDrive file into ${store}`] =
      `${r.status}, ${r.size === totalMb * 1024 * 1024 ? 'size ok' : `SIZE ${String(r.size)}`}, quickXorHash verified: ${String(r.verified)}; ` +
      `${(totalMb / r.seconds).toFixed(0)} MiB/s; a fresh service (its hashing threads, started at boot, added ${r.poolMb.toFixed(1)} MiB; ` +
      `its first run, without the file, ${r.firstRunMb.toFixed(1)} MiB): RSS ${r.rssStartMb.toFixed(0)} MiB before the run that collects the file, ` +
      `growth during that run ${r.rssGrowthMb.toFixed(1)} MiB (goal <= ${goal})`;
  }
  return out;
}

export function benchQuickXor(totalMb: number): Record<string, string> {
  const buf = Buffer.alloc(1024 * 1024, 0x5a);
  const h = new QuickXorHash();
  const started = process.hrtime.bigint();
  for (let i = 0; i < totalMb; i++) h.update(buf);
  h.digest();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { 'quickXorHash alone': `${(totalMb / seconds).toFixed(0)} MiB/s` };
}
