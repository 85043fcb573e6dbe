// Content-addressed blob store on the local filesystem: root/ab/cd/<sha256>.
// A blob is written to root/tmp, fsynced, then renamed into place, so a reader or a crash never sees a
// partial blob at its final path. With `deferSync` (group commit) the fsyncs wait for `sync()`, which the caller
// runs before it records the blob: a crash before it may leave a torn file, never one that an item refers to.
// root/tmp must stay on the same filesystem as the blobs for rename to be atomic.
import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { HashingOptions } from './hashing.ts';
import { assertSha256, BlobNotFoundError, type BlobRange, type BlobStore, type CommittedBlob } from './types.ts';
import { PipelineWriter, type BlobSink } from './writer.ts';

export interface FsBlobStoreOptions {
  root: string;
  hashing?: HashingOptions;
}

export interface FsBlobStore extends BlobStore {
  readonly root: string;
  /** Where a blob lives (or would live) on disk. */
  pathFor(sha256: string): string;
  sync(sha256s: string[]): Promise<void>;
  /** Deletes temp files left by a crash that were last touched more than `olderThanMs` ago; returns how many. */
  sweepTemp(olderThanMs: number): Promise<number>;
}

function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
}

async function ignoreMissing(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
}

/** Makes a rename durable: the directory entry is only on disk once the directory itself is fsynced. */
async function syncDir(path: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch (error) {
    // Some platforms and filesystems refuse to fsync a directory; the rename is still atomic there.
    if (!['EISDIR', 'EINVAL', 'EPERM', 'EBADF'].includes(errnoCode(error) ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

/** Where a sink puts its blob: the final path of a digest and a cached mkdir of its directory. */
interface Placement {
  pathFor(sha256: string): string;
  ensureDir(dir: string): Promise<void>;
}

/**
 * A blob's bytes on their way to disk: positional writes into a temp file, fsync, then rename into place. With
 * `deferSync` the fsyncs are left to FsBlobStore.sync (group commit): a crash may then leave a torn file at a
 * final path, which is why a commit that finds its path taken compares sizes before it keeps what is there.
 */
class FsSink implements BlobSink {
  private offset = 0;

  constructor(
    private readonly handle: FileHandle,
    private readonly tempPath: string,
    private readonly place: Placement,
    private readonly deferSync: boolean,
  ) {}

  async write(chunk: Uint8Array): Promise<void> {
    let done = 0;
    while (done < chunk.length) {
      const { bytesWritten } = await this.handle.write(chunk, done, chunk.length - done, this.offset + done);
      done += bytesWritten;
    }
    this.offset += chunk.length;
  }

  async end(): Promise<void> {
    if (!this.deferSync) await this.handle.sync();
  }

  async commit(blob: CommittedBlob): Promise<void> {
    // readable by the service's user only, and never rewritten in place
    await this.handle.chmod(0o400);
    await this.handle.close();
    const finalPath = this.place.pathFor(blob.sha256);
    await this.place.ensureDir(dirname(finalPath));
    // The same content already there is kept; a file of another size is what a crash left of an unsynced commit.
    if ((await sizeOf(finalPath)) === blob.size) {
      await unlink(this.tempPath);
      return;
    }
    // Two writers committing the same content may both get here; rename replaces atomically with identical bytes.
    await rename(this.tempPath, finalPath);
    if (!this.deferSync) await syncDir(dirname(finalPath));
  }

  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await ignoreMissing(unlink(this.tempPath));
  }
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return (await sizeOf(path)) !== undefined;
}

/** fsync of a file that may have been deleted meanwhile (a collected blob): then there is nothing to make durable. */
async function syncFile(path: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  } finally {
    await handle?.close();
  }
}

/** Runs `work` over `items`, at most `width` at a time: concurrent fsyncs share the filesystem's journal commits. */
async function eachLimited<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}

export function createFsBlobStore(options: FsBlobStoreOptions): FsBlobStore {
  const root = options.root;
  const tmpDir = join(root, 'tmp');
  const active = new Set<string>();
  // Directories made by this process; blob directories are never removed, and a miss only costs one mkdir.
  const made = new Set<string>();

  const pathFor = (sha256: string): string => {
    assertSha256(sha256);
    return join(root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  };
  const place: Placement = {
    pathFor,
    async ensureDir(dir) {
      if (made.has(dir)) return;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      made.add(dir);
    },
  };

  return {
    root,
    pathFor,

    async writer(opts) {
      await place.ensureDir(tmpDir);
      const tempPath = join(tmpDir, `${Date.now()}-${randomUUID()}.part`);
      const handle = await open(tempPath, 'wx', 0o600);
      active.add(tempPath);
      const sink = new FsSink(handle, tempPath, place, opts?.deferSync === true);
      return new PipelineWriter(sink, opts?.hashers, options.hashing, () => active.delete(tempPath));
    },

    async sync(sha256s) {
      const paths = [...new Set(sha256s)].map(pathFor);
      await eachLimited(paths, 16, syncFile);
      // the names, as an unbatched commit does: the directory of each blob
      await eachLimited([...new Set(paths.map((p) => dirname(p)))], 16, syncDir);
    },

    async has(sha256) {
      return exists(pathFor(sha256));
    },

    async stat(sha256) {
      try {
        const info = await stat(pathFor(sha256));
        return { size: info.size };
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return null;
        throw error;
      }
    },

    async read(sha256: string, range?: BlobRange): Promise<Readable> {
      const path = pathFor(sha256);
      if (range && (range.start < 0 || (range.end !== undefined && range.end < range.start))) {
        throw new RangeError(`invalid range ${range.start}-${range.end ?? ''}`);
      }
      let handle: FileHandle;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') throw new BlobNotFoundError(sha256);
        throw error;
      }
      return handle.createReadStream({ start: range?.start, end: range?.end, autoClose: true });
    },

    async delete(sha256) {
      await ignoreMissing(unlink(pathFor(sha256)));
    },

    async sweepTemp(olderThanMs) {
      let names: string[];
      try {
        names = await readdir(tmpDir);
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return 0;
        throw error;
      }
      const cutoff = Date.now() - olderThanMs;
      let removed = 0;
      for (const name of names) {
        const path = join(tmpDir, name);
        if (active.has(path)) continue;
        try {
          if ((await stat(path)).mtimeMs >= cutoff) continue;
          await unlink(path);
          removed += 1;
        } catch (error) {
          if (errnoCode(error) !== 'ENOENT') throw error;
        }
      }
      return removed;
    },
  };
}
