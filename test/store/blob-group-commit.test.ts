import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile, mkdir, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
});
