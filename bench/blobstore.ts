import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createFsBlobStore, pipeToWriter } from '../src/blobs/index.ts';
import { QuickXorHash } from '../src/connectors/onedrive/quickxorhash.ts';

/** Streams a large synthetic file into the content store (SHA-256 + MD5 + quickXorHash) and prints MB/s and RSS growth. */
export async function benchBlobStore(totalMb: number): Promise<Record<string, string>> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-blobs-'));
  const store = createFsBlobStore({ root });
  const chunk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31 + 7) & 0xff;
  let sent = 0;
  const total = totalMb * 1024 * 1024;
  const source = new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      chunk[0] = sent & 0xff; // every chunk differs a little
      sent += chunk.length;
      this.push(Buffer.from(chunk));
    },
  });
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const started = process.hrtime.bigint();
  const writer = await store.writer({ hashers: { quickXorHash: () => new QuickXorHash() } });
  await pipeToWriter(source, writer);
  const blob = await writer.commit();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  fs.rmSync(root, { recursive: true, force: true });
  return {
    'blob store: streamed': `${totalMb} MiB in ${seconds.toFixed(2)} s = ${(totalMb / seconds).toFixed(0)} MiB/s (sha256+md5+quickXorHash, fsync, rename)`,
    'blob store: RSS growth (peak - start)': `${((rssPeak - rssBefore) / 1024 / 1024).toFixed(1)} MiB`,
    'blob store: size check': blob.size === total ? 'ok' : `MISMATCH ${blob.size}`,
  };
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
