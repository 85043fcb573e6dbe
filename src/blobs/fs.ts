// Content-addressed blob store on the local filesystem: root/ab/cd/<sha256>.
// A blob is written to root/tmp, fsynced, then renamed into place, so a reader or a crash never sees a
// partial blob at its final path. With `deferSync` (group commit) the fsyncs wait for `sync()`, which the caller
// runs before it records the blob: a crash before it may leave a torn file, never one that an item refers to.
// root/tmp must stay on the same filesystem as the blobs for rename to be atomic.
import { randomUUID } from 'node:crypto';
import { closeSync, fsync as fsyncCallback, openSync } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { HashingOptions } from './hashing.ts';
import { assertSha256, BlobNotFoundError, type BlobRange, type BlobStore, type CommittedBlob } from './types.ts';
import { commitSmall, SMALL_BLOB_BYTES } from './fs-small.ts';
import { PipelineWriter, type BlobSink } from './writer.ts';

export interface FsBlobStoreOptions {
  root: string;
  hashing?: HashingOptions;
  /** fsync of an open file or directory in `sync()` (tests inject failures and watch what is made durable). */
  fsync?: (fd: number, path: string) => Promise<void>;
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

/** Some platforms and filesystems refuse to fsync a directory; the rename is still atomic there. */
function dirSyncRefused(error: unknown): boolean {
  return ['EISDIR', 'EINVAL', 'EPERM', 'EBADF'].includes(errnoCode(error) ?? '');
}

/** Where a sink puts its blob: the final path of a digest and a cached mkdir of its directory. */
export interface Placement {
  readonly tmpDir: string;
  pathFor(sha256: string): string;
  /** Makes `dir` (cached); true when this call created it: nothing can be in it then but what others add meanwhile. */
  ensureDir(dir: string): Promise<boolean>;
  /** Makes the names in these directories durable, and the names of directories this process made for them. */
  syncNames(dirs: Iterable<string>): Promise<void>;
}

/**
 * A blob's bytes on their way to disk: positional writes into a temp file, fsync, then rename into place. With
 * `deferSync` the fsyncs are left to FsBlobStore.sync (group commit): a crash may then leave a torn file at a
 * final path, which is why a commit that finds its path taken compares sizes before it keeps what is there.
 * A small blob under group commit is held in memory until its commit writes it in one go (fs-small.ts): no temp
 * file is opened for it while it downloads, and nothing is left to sweep if it never commits.
 */
class FsSink implements BlobSink {
  private offset = 0;
  private handle: FileHandle | undefined;
  private tempPath: string | undefined;
  /** Bytes of a group-commit blob not yet on disk; null once it outgrew SMALL_BLOB_BYTES or without group commit. */
  private held: Buffer[] | null;

  constructor(
    private readonly place: Placement,
    private readonly deferSync: boolean,
    private readonly active: Set<string>,
  ) {
    this.held = deferSync ? [] : null;
  }

  /** Opens the temp file (a writer without group commit does so before its first byte). */
  async openTemp(): Promise<void> {
    await this.place.ensureDir(this.place.tmpDir);
    const tempPath = join(this.place.tmpDir, `${Date.now()}-${randomUUID()}.part`);
    // Created read-only for the service's user (a blob is never rewritten in place): the descriptor opened here
    // still writes, and the commit needs no chmod.
    this.handle = await open(tempPath, 'wx', 0o400);
    this.tempPath = tempPath;
    this.active.add(tempPath);
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.held && this.offset + chunk.length <= SMALL_BLOB_BYTES) {
      // copied: a sink keeps no reference to the caller's buffer
      this.held.push(Buffer.from(chunk));
      this.offset += chunk.length;
      return;
    }
    if (!this.handle) await this.openTemp();
    if (this.held) {
      const early = Buffer.concat(this.held);
      this.held = null;
      await this.writeAt(early, 0);
    }
    await this.writeAt(chunk, this.offset);
    this.offset += chunk.length;
  }

  private async writeAt(chunk: Uint8Array, at: number): Promise<void> {
    let done = 0;
    while (done < chunk.length) {
      const { bytesWritten } = await this.handle!.write(chunk, done, chunk.length - done, at + done);
      done += bytesWritten;
    }
  }

  async end(): Promise<void> {
    if (this.handle && !this.deferSync) await this.handle.sync();
  }

  async commit(blob: CommittedBlob): Promise<void> {
    if (this.held) {
      const bytes = Buffer.concat(this.held);
      this.held = null;
      return commitSmall(this.place, blob.sha256, bytes);
    }
    const handle = this.handle!;
    const tempPath = this.tempPath!;
    await handle.close();
    const finalPath = this.place.pathFor(blob.sha256);
    await this.place.ensureDir(dirname(finalPath));
    // The same content already there is kept; a file of another size is what a crash left of an unsynced commit.
    if ((await sizeOf(finalPath)) === blob.size) {
      await unlink(tempPath);
      return;
    }
    // Two writers committing the same content may both get here; rename replaces atomically with identical bytes.
    await rename(tempPath, finalPath);
    if (!this.deferSync) await this.place.syncNames([dirname(finalPath)]);
  }

  async abort(): Promise<void> {
    this.held = null;
    if (!this.handle) return;
    await this.handle.close().catch(() => undefined);
    await ignoreMissing(unlink(this.tempPath!));
  }

  /** The temp file is gone (committed or aborted): the sweep may judge it by age again. */
  settled(): void {
    if (this.tempPath) this.active.delete(this.tempPath);
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

type Fsync = (fd: number, path: string) => Promise<void>;

const fsyncFd: Fsync = (fd) => fsyncAsync(fd);
const fsyncAsync = promisify(fsyncCallback);

/**
 * fsync by path: the open and close are cheap system calls made on this thread, and only the fsync itself (which
 * waits on the disk) goes to the thread pool. A file deleted meanwhile (a collected blob) has nothing to make
 * durable.
 */
async function syncPath(fsync: Fsync, path: string, dir: boolean): Promise<void> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw error;
  }
  try {
    await fsync(fd, path);
  } catch (error) {
    if (!dir || !dirSyncRefused(error)) throw error;
  } finally {
    closeSync(fd);
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
  const fsync = options.fsync ?? fsyncFd;
  const active = new Set<string>();
  // Directories made by this process; blob directories are never removed, and a miss only costs one mkdir.
  const made = new Set<string>();
  // Directories this process created whose own name (an entry in their parent) is not durable yet: the group sync
  // of a blob inside one fsyncs the parents too, and forgets a directory once its parent is synced.
  const unnamed = new Set<string>();

  const pathFor = (sha256: string): string => {
    assertSha256(sha256);
    return join(root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  };
  /** `first`: the topmost directory mkdir created, if any; it and everything below it down to `dir` are new. */
  const noteMade = (dir: string, first: string | undefined) => {
    made.add(dir);
    if (first === undefined || dir === tmpDir) return;
    for (let d = dir; d.length >= first.length && d !== root; d = dirname(d)) unnamed.add(d);
  };
  const place: Placement = {
    tmpDir,
    pathFor,
    async ensureDir(dir) {
      if (made.has(dir)) return false;
      const first = await mkdir(dir, { recursive: true, mode: 0o700 });
      noteMade(dir, first);
      return first !== undefined;
    },
    async syncNames(blobDirs) {
      // A new shard directory is itself a name in its parent: the parents of those made since the last sync too.
      const dirs = new Set(blobDirs);
      const named: string[] = [];
      for (const dir of [...dirs])
        for (let d = dir; unnamed.has(d); d = dirname(d)) {
          named.push(d);
          dirs.add(dirname(d));
        }
      await eachLimited([...dirs], 16, (dir) => syncPath(fsync, dir, true));
      // Forgotten only now: a concurrent sync that still sees them fsyncs the parents itself rather than trust this.
      for (const d of named) unnamed.delete(d);
    },
  };

  return {
    root,
    pathFor,

    async writer(opts) {
      const sink = new FsSink(place, opts?.deferSync === true, active);
      // A blob that may stay in memory (group commit) opens its temp file only if it outgrows that.
      if (opts?.deferSync !== true) await sink.openTemp();
      return new PipelineWriter(sink, opts?.hashers, options.hashing, () => sink.settled());
    },

    async sync(sha256s) {
      const paths = [...new Set(sha256s)].map(pathFor);
      await eachLimited(paths, 16, (path) => syncPath(fsync, path, false));
      // the names, as an unbatched commit does: the directory of each blob
      await place.syncNames(paths.map((p) => dirname(p)));
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
