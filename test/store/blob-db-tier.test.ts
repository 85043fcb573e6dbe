import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDbTier } from '../../src/blobs/db-tier.ts';
import { createFsBlobStore, type BlobStore, type FsBlobStore } from '../../src/blobs/index.ts';
import { BlobRefRepo } from '../../src/store/blob-refs.ts';
import type { Database } from '../../src/store/db.ts';
import { SmallBlobRepo } from '../../src/store/small-blobs.ts';
import { testDatabases } from '../support/databases.ts';

const MAX = 1024;
const hex = (algo: string, data: Uint8Array) => createHash(algo).update(data).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function put(store: BlobStore, data: Buffer, deferSync: boolean, chunk = 300) {
  const w = await store.writer({ deferSync, hashers: { sha1: () => createHash('sha1') } });
  for (let i = 0; i < data.length; i += chunk) await w.write(data.subarray(i, i + chunk));
  return w.commit();
}

for (const database of testDatabases) {
  describe(`small blobs in the database (${database.name})`, () => {
    let db: Database;
    let close: () => Promise<void>;
    let root: string;
    let files: FsBlobStore;
    /** Two processes' stores over one database and one blob folder. */
    let one: BlobStore;
    let other: BlobStore;
    const rowOf = (sha256: string) =>
      db.selectFrom('small_blobs').selectAll().where('sha256', '=', sha256).executeTakeFirst();

    beforeAll(async () => {
      ({ db, close } = await database.open());
      root = await mkdtemp(join(tmpdir(), 'custody-tier-'));
      files = createFsBlobStore({ root });
      one = withDbTier(files, new SmallBlobRepo(db), MAX);
      other = withDbTier(createFsBlobStore({ root }), new SmallBlobRepo(db), MAX);
    });
    afterAll(async () => {
      await close();
      await rm(root, { recursive: true, force: true });
    });

    it('keeps a group-committed small blob in memory until sync, then in one row and in no file', async () => {
      const data = randomBytes(MAX);
      const blob = await put(one, data, true);
      expect(blob).toEqual({
        sha256: hex('sha256', data),
        md5: hex('md5', data),
        size: MAX,
        extra: { sha1: createHash('sha1').update(data).digest('base64') },
        // held in memory until sync: its reference note can wait for the sync too (fresh-blobs.ts)
        held: true,
      });
      expect(await one.has(blob.sha256)).toBe(true);
      expect(await one.stat(blob.sha256)).toEqual({ size: MAX });
      expect((await readAll(await one.read(blob.sha256, { start: 10, end: 19 }))).equals(data.subarray(10, 20))).toBe(
        true,
      );
      // not durable yet: another process does not see it, and nothing is in the table
      expect(await other.has(blob.sha256)).toBe(false);
      expect(await rowOf(blob.sha256)).toBeUndefined();

      await one.sync!([blob.sha256]);
      expect(Buffer.from((await rowOf(blob.sha256))!.bytes).equals(data)).toBe(true);
      expect(await other.has(blob.sha256)).toBe(true);
      expect((await readAll(await other.read(blob.sha256))).equals(data)).toBe(true);
      expect(existsSync(files.pathFor(blob.sha256))).toBe(false);
    });

    it('writes a small blob without group commit at once', async () => {
      const data = Buffer.from('a chat message');
      const blob = await put(one, data, false);
      expect(blob.held).toBeUndefined();
      expect(await other.stat(blob.sha256)).toEqual({ size: data.length });
      expect(existsSync(files.pathFor(blob.sha256))).toBe(false);
    });

    it('sends content past the limit to the base store, hashed whole', async () => {
      const data = randomBytes(MAX + 1);
      const blob = await put(one, data, true);
      expect(blob.sha256).toBe(hex('sha256', data));
      expect(blob.md5).toBe(hex('md5', data));
      expect(blob.extra).toEqual({ sha1: createHash('sha1').update(data).digest('base64') });
      // a file, in place at commit: its reference is noted then, not left for the sync
      expect(blob.held).toBeUndefined();
      await one.sync!([blob.sha256]);
      expect(await rowOf(blob.sha256)).toBeUndefined();
      expect(existsSync(files.pathFor(blob.sha256))).toBe(true);
      expect((await readAll(await other.read(blob.sha256))).equals(data)).toBe(true);
    });

    it('serves content stored as a file before the tier existed, and deletes it from either place', async () => {
      const data = Buffer.from('written before the upgrade');
      const old = await put(files, data, false);
      expect(await one.has(old.sha256)).toBe(true);
      expect((await readAll(await one.read(old.sha256))).equals(data)).toBe(true);
      await one.delete(old.sha256);
      expect(await one.has(old.sha256)).toBe(false);

      const small = await put(one, Buffer.from('kept in a row'), false);
      await other.delete(small.sha256);
      expect(await one.has(small.sha256)).toBe(false);
    });

    it('tells which of many blobs are missing, wherever the others are kept', async () => {
      const pending = await put(one, Buffer.from('pending in this process'), true);
      const row = await put(one, Buffer.from('a row already'), false);
      const file = await put(one, randomBytes(MAX + 1), false);
      const absent = hex('sha256', Buffer.from('never written'));
      const all = [pending.sha256, row.sha256, file.sha256, absent];
      expect(await one.missing!(all)).toEqual([absent]);
      // the other process has not seen the pending one, which is not durable yet
      expect(await other.missing!(all)).toEqual([pending.sha256, absent]);
      expect(await one.missing!([])).toEqual([]);
      await expect(one.missing!(['not a hash'])).rejects.toThrow();
    });

    it('keeps a small blob pending when its sync fails, and writes it at the next', async () => {
      let fail = true;
      const repo = new SmallBlobRepo(db);
      const flaky = withDbTier(
        files,
        {
          put: (rows) => (fail ? Promise.reject(new Error('disk full')) : repo.put(rows)),
          get: (s) => repo.get(s),
          size: (s) => repo.size(s),
          present: (s) => repo.present(s),
          delete: (s) => repo.delete(s),
        },
        MAX,
      );
      const blob = await put(flaky, Buffer.from('retried'), true);
      await expect(flaky.sync!([blob.sha256])).rejects.toThrow('disk full');
      expect(await flaky.has(blob.sha256)).toBe(true);
      fail = false;
      await flaky.sync!([blob.sha256]);
      expect(await other.has(blob.sha256)).toBe(true);
    });

    it('lets the orphan sweep delete a small blob nothing refers to', async () => {
      const blob = await put(one, Buffer.from('orphaned by a crash'), true);
      await one.sync!([blob.sha256]);
      const refs = new BlobRefRepo(db);
      await refs.noteCommitted(blob.sha256, blob.size, '2026-01-01T00:00:00.000Z');
      expect(await refs.collectStale(blob.sha256, '2026-02-01T00:00:00.000Z', one)).toBe('deleted');
      expect(await rowOf(blob.sha256)).toBeUndefined();
      expect(await other.has(blob.sha256)).toBe(false);
    });
  });
}
