import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BlobNotFoundError,
  createBlobStore,
  createFsBlobStore,
  createS3BlobStore,
  pipeToWriter,
  type BlobStore,
  type BlobWriter,
  type FsBlobStore,
} from '../../src/blobs/index.ts';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { S3_TEST_BUCKET, S3_TEST_CREDENTIALS, startS3, type TestS3 } from '../support/s3.ts';
import { withDbTier } from '../../src/blobs/db-tier.ts';
import { SmallBlobRepo } from '../../src/store/small-blobs.ts';
import { testDatabases } from '../support/databases.ts';

const hex = (algo: string, data: Uint8Array) => createHash(algo).update(data).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function store(s: BlobStore, data: Uint8Array, chunk = 1000) {
  const w = await s.writer();
  for (let i = 0; i < data.length; i += chunk) await w.write(data.subarray(i, i + chunk));
  return w.commit();
}

/** A source that delivers `data` from `start` and fails after `failAfter` bytes (like a dropped download). */
function source(data: Buffer, start = 0, failAfter = Infinity): Readable {
  let pos = start;
  let sent = 0;
  return new Readable({
    highWaterMark: 4096,
    read() {
      if (sent >= failAfter) return this.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      if (pos >= data.length) return this.push(null);
      const n = Math.min(4096, data.length - pos, failAfter - sent);
      this.push(data.subarray(pos, pos + n));
      pos += n;
      sent += n;
    },
  });
}

interface Harness {
  store: BlobStore;
  cleanup(): Promise<void>;
}

/** The contract every BlobStore implementation must pass (the S3 store will run this too). */
function blobStoreContract(name: string, factory: () => Promise<Harness>) {
  describe(`BlobStore contract: ${name}`, () => {
    let h: Harness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => {
      await h.cleanup();
    });

    it('stores content under its SHA-256 with MD5 and size computed while streaming', async () => {
      const data = randomBytes(123_457);
      const blob = await store(h.store, data, 10_000);
      expect(blob).toEqual({ sha256: hex('sha256', data), md5: hex('md5', data), size: data.length });
      expect(await h.store.has(blob.sha256)).toBe(true);
      expect(await h.store.stat(blob.sha256)).toEqual({ size: data.length });
      expect((await readAll(await h.store.read(blob.sha256))).equals(data)).toBe(true);
    });

    it('stores the empty blob', async () => {
      const blob = await (await h.store.writer()).commit();
      expect(blob).toEqual({ sha256: hex('sha256', Buffer.alloc(0)), md5: hex('md5', Buffer.alloc(0)), size: 0 });
      expect((await readAll(await h.store.read(blob.sha256))).length).toBe(0);
    });

    it('stores identical content once: a second commit reports the same blob, one delete removes it', async () => {
      const data = randomBytes(50_000);
      const [a, b] = await Promise.all([store(h.store, data), store(h.store, data, 777)]);
      expect(b).toEqual(a);
      expect((await readAll(await h.store.read(a.sha256))).equals(data)).toBe(true);
      await h.store.delete(a.sha256);
      expect(await h.store.has(a.sha256)).toBe(false);
    });

    it('shows nothing before commit and nothing after abort', async () => {
      const data = randomBytes(20_000);
      const sha = hex('sha256', data);
      const w = await h.store.writer();
      await w.write(data);
      expect(w.bytesWritten).toBe(data.length);
      expect(await h.store.has(sha)).toBe(false);
      expect(await h.store.stat(sha)).toBeNull();
      await expect(h.store.read(sha)).rejects.toBeInstanceOf(BlobNotFoundError);
      await w.abort();
      await w.abort();
      expect(await h.store.has(sha)).toBe(false);
      await expect(w.write(data)).rejects.toThrow(/aborted/);
      await expect(w.commit()).rejects.toThrow(/aborted/);
    });

    it('refuses writes after commit', async () => {
      const w = await h.store.writer();
      await w.write(Buffer.from('x'));
      await w.commit();
      await expect(w.write(Buffer.from('y'))).rejects.toThrow(/committed/);
      await w.abort(); // no-op: the committed blob stays
      expect(await h.store.has(hex('sha256', Buffer.from('x')))).toBe(true);
    });

    it('serves inclusive byte ranges', async () => {
      const data = Buffer.from('0123456789abcdefghij');
      const { sha256 } = await store(h.store, data);
      expect((await readAll(await h.store.read(sha256, { start: 10, end: 14 }))).toString()).toBe('abcde');
      expect((await readAll(await h.store.read(sha256, { start: 15 }))).toString()).toBe('fghij');
      expect((await readAll(await h.store.read(sha256, { start: 0, end: 0 }))).toString()).toBe('0');
      await expect(h.store.read(sha256, { start: 5, end: 2 })).rejects.toThrow(RangeError);
    });

    it('resumes a dropped download from bytesWritten and produces the hashes of the whole content', async () => {
      const data = randomBytes(300_000);
      const w = await h.store.writer();
      await expect(pipeToWriter(source(data, 0, 120_000), w)).rejects.toThrow('socket hang up');
      // Chunks still buffered in the dead source are lost, as with a real socket: resume from what reached the writer.
      const resumeAt = w.bytesWritten;
      expect(resumeAt).toBeGreaterThan(100_000);
      expect(resumeAt).toBeLessThanOrEqual(120_000);
      expect(await pipeToWriter(source(data, resumeAt), w)).toBe(data.length - resumeAt);
      const blob = await w.commit();
      expect(blob).toEqual({ sha256: hex('sha256', data), md5: hex('md5', data), size: data.length });
      expect((await readAll(await h.store.read(blob.sha256))).equals(data)).toBe(true);
    });

    it('computes extra hashers while streaming (Buffer digests as base64, strings as given)', async () => {
      const data = randomBytes(70_000);
      const w = await h.store.writer({
        hashers: {
          sha1: () => createHash('sha1'),
          byteCount: () => {
            let n = 0;
            return { update: (b: Uint8Array) => (n += b.length), digest: () => String(n) };
          },
        },
      });
      await pipeToWriter(source(data), w);
      const blob = await w.commit();
      expect(blob.extra).toEqual({ sha1: createHash('sha1').update(data).digest('base64'), byteCount: '70000' });
    });

    it('treats deleting a missing blob as done and refuses keys that are not a SHA-256', async () => {
      await h.store.delete('0'.repeat(64));
      await expect(h.store.read('../../etc/passwd')).rejects.toThrow(TypeError);
      await expect(h.store.has('A'.repeat(64))).rejects.toThrow(TypeError);
      await expect(h.store.read('f'.repeat(64))).rejects.toMatchObject({ code: 'blob_not_found' });
    });
  });
}

async function fsHarness(): Promise<Harness & { store: FsBlobStore; root: string }> {
  const root = await mkdtemp(join(tmpdir(), 'custody-blobs-'));
  return { root, store: createFsBlobStore({ root }), cleanup: () => rm(root, { recursive: true, force: true }) };
}

blobStoreContract('filesystem', fsHarness);

// The same store with hashing moved to worker threads from the first 16 KiB, so the contract's blobs take that path.
blobStoreContract('filesystem, hashing on worker threads', async () => {
  const root = await mkdtemp(join(tmpdir(), 'custody-blobs-'));
  return {
    store: createFsBlobStore({ root, hashing: { threshold: 16 * 1024 } }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});

// Content up to 2,000 bytes in the database, the rest in files: the contract's blobs take both paths (most are larger,
// the empty one and the ranges' small ones are not), and a blob written in chunks of 1,000 spills on its third.
for (const database of testDatabases)
  blobStoreContract(`database tier (${database.name}) over the filesystem`, async () => {
    const fsStore = await fsHarness();
    const opened = await database.open();
    return {
      store: withDbTier(fsStore.store, new SmallBlobRepo(opened.db), 2000),
      cleanup: async () => {
        await opened.close();
        await fsStore.cleanup();
      },
    };
  });

let s3: TestS3 | undefined;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3?.stop();
});

/** Each test gets its own prefix in the one bucket; 5 MiB parts (S3's minimum) so small blobs go multipart too. */
function s3Store(options: { prefix?: string; partSize?: number; threads?: boolean } = {}) {
  return createS3BlobStore({
    bucket: S3_TEST_BUCKET,
    prefix: options.prefix ?? `t-${randomBytes(6).toString('hex')}`,
    endpoint: s3!.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: S3_TEST_CREDENTIALS,
    partSize: options.partSize ?? 5 * 1024 * 1024,
    hashing: { threads: options.threads ?? true, threshold: 64 * 1024 },
  });
}

blobStoreContract('S3 (s3rver)', async () => {
  const store = s3Store();
  return { store, cleanup: async () => store.client.destroy() };
});

describe('filesystem blob store specifics', () => {
  let h: Awaited<ReturnType<typeof fsHarness>>;
  beforeEach(async () => {
    h = await fsHarness();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  async function filesUnder(dir: string): Promise<string[]> {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
  }

  it('lays blobs out as ab/cd/<sha256>, read-only, one file per content, with no temp left behind', async () => {
    const data = randomBytes(10_000);
    const a = await store(h.store, data);
    await store(h.store, data);
    expect(await filesUnder(h.root)).toEqual([join(a.sha256.slice(0, 2), a.sha256.slice(2, 4), a.sha256)]);
    expect((await stat(h.store.pathFor(a.sha256))).mode & 0o222).toBe(0);
  });

  it('keeps the partial file in tmp only, and abort removes it', async () => {
    const w = await h.store.writer();
    await w.write(randomBytes(5000));
    const files = await filesUnder(h.root);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^tmp\/.+\.part$/);
    await w.abort();
    expect(await filesUnder(h.root)).toEqual([]);
  });

  it('sweeps stale temp files from a crash but not those of live writers or recent ones', async () => {
    const live = await h.store.writer();
    await live.write(Buffer.from('in progress'));
    const crashed = join(h.root, 'tmp', 'crashed.part');
    const recent = join(h.root, 'tmp', 'recent.part');
    await writeFile(crashed, 'half a file');
    await writeFile(recent, 'another writer process');
    // Everything but `recent` looks three hours old, the live writer's file included.
    const old = new Date(Date.now() - 3 * 3600_000);
    for (const f of await readdir(join(h.root, 'tmp')))
      if (f !== 'recent.part') await utimes(join(h.root, 'tmp', f), old, old);
    expect(await h.store.sweepTemp(3600_000)).toBe(1);
    const left = await readdir(join(h.root, 'tmp'));
    expect(left).toHaveLength(2);
    expect(left).toContain('recent.part');
    expect(left).not.toContain('crashed.part');
    const blob = await live.commit();
    expect(blob.size).toBe(11);
  });

  it('createBlobStore picks the filesystem store', async () => {
    const s = createBlobStore({ kind: 'fs', root: h.root });
    const blob = await store(s, Buffer.from('hello'));
    expect(blob.sha256).toBe(hex('sha256', Buffer.from('hello')));
    expect(await h.store.has(blob.sha256)).toBe(true);
  });

  it('refuses a second write while one is still running', async () => {
    const w = await h.store.writer();
    const first = w.write(randomBytes(1 << 20));
    await expect(w.write(Buffer.from('x'))).rejects.toThrow(/previous write/);
    await first;
    await w.abort();
  });

  it('streams 192 MiB without holding it in memory', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const generated = (total: number) => {
      let produced = 0;
      return new Readable({
        highWaterMark: 1 << 20,
        read() {
          if (produced >= total) return this.push(null);
          const chunk = randomBytes(1 << 16);
          produced += chunk.length;
          // Collect spent chunks so RSS shows what is retained, not what is waiting for the GC.
          if (produced % (16 << 20) === 0) gc();
          this.push(chunk);
        },
      });
    };
    const run = async (total: number) => {
      const w = await h.store.writer();
      await pipeToWriter(generated(total), w);
      return w.commit();
    };
    // The first run pays one-off costs (thread pool, code, hash contexts) that are not per byte.
    await run(8 << 20);
    gc();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const blob = await run(192 << 20);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(blob.size).toBe(192 << 20);
    expect(peak - before).toBeLessThan(64 << 20);
  });
});

describe('pipeToWriter', () => {
  /** A writer that is slower than the source, recording how far the source got ahead of it. */
  function slowWriter() {
    const state = { written: 0, maxAhead: 0, produced: 0 };
    const writer: BlobWriter = {
      get bytesWritten() {
        return state.written;
      },
      async write(chunk) {
        state.maxAhead = Math.max(state.maxAhead, state.produced - state.written);
        await new Promise((r) => setImmediate(r));
        state.written += chunk.length;
      },
      commit: async () => ({ sha256: '', md5: '', size: state.written }),
      abort: async () => {},
    };
    return { writer, state };
  }

  it('applies backpressure: the source never runs more than its buffer ahead of the writer', async () => {
    const { writer, state } = slowWriter();
    const src = new Readable({
      highWaterMark: 64 * 1024,
      read() {
        if (state.produced >= 16 * 1024 * 1024) return this.push(null);
        state.produced += 16 * 1024;
        this.push(Buffer.alloc(16 * 1024));
      },
    });
    expect(await pipeToWriter(src, writer)).toBe(16 * 1024 * 1024);
    expect(state.maxAhead).toBeLessThanOrEqual(128 * 1024);
  });

  it('stops on abort, destroys the source and leaves the writer open for the caller', async () => {
    const { writer, state } = slowWriter();
    const src = new Readable({
      read() {
        this.push(Buffer.alloc(1024));
      },
    });
    const ac = new AbortController();
    const done = pipeToWriter(src, writer, ac.signal);
    setTimeout(() => ac.abort(new Error('run cancelled')), 20);
    await expect(done).rejects.toThrow('run cancelled');
    expect(src.destroyed).toBe(true);
    expect(state.written).toBeGreaterThan(0);
  });

  it('accepts string chunks from an async iterable', async () => {
    const { writer } = slowWriter();
    async function* gen() {
      yield 'héllo ';
      yield new Uint8Array([1, 2, 3]);
    }
    expect(await pipeToWriter(gen(), writer)).toBe(Buffer.byteLength('héllo ') + 3);
  });
});

describe('S3 blob store specifics', () => {
  async function keysUnder(s: ReturnType<typeof s3Store>, prefix: string): Promise<string[]> {
    const page = await s.client.send(new ListObjectsV2Command({ Bucket: S3_TEST_BUCKET, Prefix: prefix }));
    return (page.Contents ?? []).map((o) => o.Key!).sort();
  }

  it('keeps content at <prefix>/blobs/<sha256>, nothing under tmp/ after a commit, an abort or a duplicate', async () => {
    const s = s3Store({ prefix: 'layout' });
    const data = randomBytes(12 * 1024 * 1024); // three parts of 5 MiB
    const a = await store(s, data, 256 * 1024);
    await store(s, data, 100_000);
    const w = await s.writer();
    await w.write(randomBytes(1000));
    await w.abort();
    expect(await keysUnder(s, 'layout/')).toEqual([`layout/blobs/${a.sha256}`]);
    expect(a).toEqual({ sha256: hex('sha256', data), md5: hex('md5', data), size: data.length });
    s.client.destroy();
  });

  it('refuses to make an upload visible when the stored bytes differ from the bytes hashed', async () => {
    const s = s3Store({ prefix: 'tamper' });
    // Flips one byte of every single-request upload on its way to the server, as a faulty proxy or disk would.
    s.client.middlewareStack.add(
      (next) => async (args) => {
        const request = (args as { request: { body?: unknown } }).request;
        if (Buffer.isBuffer(request.body) && request.body.length > 0) {
          const body = Buffer.from(request.body);
          body[0] ^= 0xff;
          request.body = body;
        }
        return next(args);
      },
      { step: 'build', name: 'tamper' },
    );
    const data = randomBytes(100_000);
    await expect(store(s, data)).rejects.toThrow(/hashes to/);
    expect(await s.has(hex('sha256', data))).toBe(false);
    expect(await keysUnder(s, 'tamper/')).toEqual([]);
    s.client.destroy();
  });

  it('sweeps temp objects a crash left but not those of live writers', async () => {
    const s = s3Store({ prefix: 'sweep' });
    await s.client.send(
      new PutObjectCommand({ Bucket: S3_TEST_BUCKET, Key: 'sweep/tmp/crashed', Body: 'half a blob' }),
    );
    const live = await s.writer();
    await live.write(randomBytes(6 * 1024 * 1024)); // past one part: the live upload has sent data
    await new Promise((r) => setTimeout(r, 1100)); // S3 times have one-second resolution
    expect(await s.sweepTemp(0)).toBe(1);
    expect(await keysUnder(s, 'sweep/tmp/')).toEqual([]);
    const blob = await live.commit();
    expect(await keysUnder(s, 'sweep/')).toEqual([`sweep/blobs/${blob.sha256}`]);
    s.client.destroy();
  });

  it('createBlobStore picks the S3 store', async () => {
    const made = createBlobStore({
      kind: 's3',
      bucket: S3_TEST_BUCKET,
      prefix: 'factory',
      endpoint: s3!.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3_TEST_CREDENTIALS,
    });
    const blob = await store(made, Buffer.from('hello'));
    expect(await s3Store({ prefix: 'factory' }).has(blob.sha256)).toBe(true);
  });
});
