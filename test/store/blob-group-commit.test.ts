import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fsync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsBlobStore, type FsBlobStore } from '../../src/blobs/index.ts';

describe('filesystem blob store, group commit (deferSync)', () => {
  let dir: string;
  let store: FsBlobStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'custody-blob-group-'));
    store = createFsBlobStore({ root: dir });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function put(bytes: Buffer, deferSync: boolean) {
    const w = await store.writer({ deferSync });
    await w.write(bytes);
    return w.commit();
  }

  it('a commit that finds a torn file (another size) at its path replaces it; a whole one is kept', async () => {
    const bytes = Buffer.from('the whole content of a small file, as the provider sent it');
    const sha = createHash('sha256').update(bytes).digest('hex');
    // what a crash before the group's fsync can leave: the name made durable, the bytes not
    await mkdir(dirname(store.pathFor(sha)), { recursive: true });
    await writeFile(store.pathFor(sha), bytes.subarray(0, 10));
    await chmod(store.pathFor(sha), 0o400);
    expect((await put(bytes, true)).sha256).toBe(sha);
    expect(await readFile(store.pathFor(sha))).toEqual(bytes);
    await put(bytes, false);
    expect(await readFile(store.pathFor(sha))).toEqual(bytes);
  });

  it('sync makes deferred blobs durable and skips one deleted meanwhile', async () => {
    const a = await put(Buffer.from('first deferred blob'), true);
    const b = await put(Buffer.from('second deferred blob'), true);
    await store.delete(b.sha256);
    await expect(store.sync([a.sha256, b.sha256, a.sha256])).resolves.toBeUndefined();
    expect(await store.has(a.sha256)).toBe(true);
    expect(await store.has(b.sha256)).toBe(false);
  });

  /** A store over the same root whose fsyncs are recorded by path; `fail(path)` true makes that one fail. */
  function watched(fail: (path: string) => boolean = () => false) {
    const synced: string[] = [];
    const real = promisify(fsync);
    const s = createFsBlobStore({
      root: dir,
      async fsync(fd, path) {
        if (fail(path)) throw Object.assign(new Error('EIO: the disk went away'), { code: 'EIO' });
        await real(fd);
        synced.push(path);
      },
    });
    return { store: s, synced };
  }

  it('a group sync makes durable the blob, its directory, and the names of the shard directories made for it', async () => {
    const { store: s, synced } = watched();
    const w = await s.writer({ deferSync: true });
    await w.write(Buffer.from('a blob in two new shard directories'));
    const { sha256 } = await w.commit();
    await s.sync([sha256]);
    const blobDir = dirname(s.pathFor(sha256));
    // the file, its directory (its name), the first-level directory (the name of the second), the root (the first's)
    expect(synced.sort()).toEqual([dir, dirname(blobDir), blobDir, s.pathFor(sha256)].sort());
    synced.length = 0;
    // those names are durable now: syncing the blob again syncs only it and its directory
    await s.sync([sha256]);
    expect(synced.sort()).toEqual([blobDir, s.pathFor(sha256)].sort());
  });

  it('a failed group sync leaves the names to sync again: the next sync of the blob retries them', async () => {
    let broken = true;
    const { store: s, synced } = watched((path) => broken && path === dir);
    const w = await s.writer({ deferSync: true });
    await w.write(Buffer.from('its shard directory name is not durable yet'));
    const { sha256 } = await w.commit();
    await expect(s.sync([sha256])).rejects.toThrow(/EIO/);
    broken = false;
    synced.length = 0;
    await s.sync([sha256]);
    expect(synced).toContain(dir);
    expect(synced).toContain(dirname(dirname(s.pathFor(sha256))));
  });

  it('a small deferred commit replaces a file of the same size but other bytes (a torn write) at its path', async () => {
    const bytes = Buffer.from('small content whose path holds garbage of the same length');
    const sha = createHash('sha256').update(bytes).digest('hex');
    await mkdir(dirname(store.pathFor(sha)), { recursive: true });
    await writeFile(store.pathFor(sha), Buffer.alloc(bytes.length));
    await chmod(store.pathFor(sha), 0o400);
    await put(bytes, true);
    expect(await readFile(store.pathFor(sha))).toEqual(bytes);
  });

  it('holds a small deferred blob in memory: no temp file while it is written, nothing left after an abort', async () => {
    const w = await store.writer({ deferSync: true });
    await w.write(Buffer.from('not on disk until its commit'));
    expect(await readdir(dir)).toEqual([]);
    await w.abort();
    expect(await readdir(dir)).toEqual([]);
  });
});
