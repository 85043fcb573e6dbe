import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { withDbTier, type SmallBlobTable } from '../../src/blobs/db-tier.ts';
import { createFsBlobStore, type BlobStore, type FsBlobStore } from '../../src/blobs/index.ts';
import type { CollectEvent, Connector, ItemInput } from '../../src/connectors/types.ts';
import { BlobRefRepo } from '../../src/store/blob-refs.ts';
import type { Database } from '../../src/store/db.ts';
import { SmallBlobRepo } from '../../src/store/small-blobs.ts';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, sha256 } from '../support/fake-connector.ts';
import { engineFor, seedCollection, useSyncStore } from '../support/sync-fixtures.ts';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function file(sourceId: string, size: number): ItemInput {
  return {
    kind: 'file',
    sourceId,
    name: `${sourceId}.txt`,
    path: `/${sourceId}.txt`,
    custodian: 'u1',
    mimeType: 'text/plain',
    size,
    version: 'v1',
    metadata: {},
  };
}

/** A connector yielding `files` with content, in one page; `broken` fail to download. */
function connectorOf(files: Array<{ id: string; bytes: Buffer; broken?: boolean }>): Connector {
  const base = createFakeConnector({ source: () => ({ units: [] }) });
  return {
    ...base,
    async *collect(): AsyncIterable<CollectEvent> {
      for (const f of files) {
        yield {
          type: 'item',
          item: file(f.id, f.bytes.length),
          content: {
            open: async () => {
              if (f.broken) throw new Error('the provider answered 500');
              return { body: Readable.from([f.bytes]), partial: false };
            },
          },
        };
      }
      yield { type: 'checkpoint', state: { done: true } };
    },
  };
}

for (const database of testDatabases) {
  describe(`a page of items with content (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    // the file layer is what these tests look at: every blob a file
    useSyncStore(database, (s) => ({ db, blobs } = s), { files: true });

    const itemRows = (collectionId: string) =>
      db
        .selectFrom('items')
        .select(['source_id', 'sha256'])
        .where('collection_id', '=', collectionId)
        .orderBy('source_id')
        .execute();

    it('makes every blob of the page durable before the transaction that records it commits', async () => {
      const files = ['a', 'b', 'c'].map((id, i) => ({ id, bytes: bytesOf(`group-${id}`, 300 + i) }));
      const synced = new Set<string>();
      let rowsWhenSynced = -1;
      let collectionId = '';
      const watched: BlobStore = {
        ...blobs,
        writer: (o) => blobs.writer(o),
        has: (s) => blobs.has(s),
        stat: (s) => blobs.stat(s),
        read: (s, r) => blobs.read(s, r),
        delete: (s) => blobs.delete(s),
        async sync(shas) {
          rowsWhenSynced = (await itemRows(collectionId)).length;
          await blobs.sync(shas);
          for (const s of shas) synced.add(s);
        },
      };
      ({ collectionId } = await seedCollection(db));
      const engine = engineFor(db, watched, [connectorOf(files)], { workers: 'none' });
      const { runId } = await engine.start(collectionId);
      await engine.runOnce(runId);
      const rows = await itemRows(collectionId);
      expect(rows.map((r) => r.source_id)).toEqual(['a', 'b', 'c']);
      expect(rowsWhenSynced).toBe(0);
      for (const r of rows) expect(synced.has(r.sha256!)).toBe(true);
    });

    it('a crash between writing the blobs and committing leaves no item without its blob', async () => {
      const files = ['a', 'b'].map((id) => ({ id, bytes: bytesOf(`crash-${id}`, 400) }));
      // The process dies while the page's blobs are made durable: nothing after that point runs.
      const dying: BlobStore = {
        ...blobs,
        writer: (o) => blobs.writer(o),
        has: (s) => blobs.has(s),
        stat: (s) => blobs.stat(s),
        read: (s, r) => blobs.read(s, r),
        delete: (s) => blobs.delete(s),
        sync: () => Promise.reject(new Error('process gone')),
      };
      const { collectionId } = await seedCollection(db);
      const engine = engineFor(db, dying, [connectorOf(files)], { workers: 'none' });
      const { runId } = await engine.start(collectionId);
      await engine.runOnce(runId).catch(() => undefined);
      expect(await itemRows(collectionId)).toEqual([]);
    });

    it("a disk failing while the page's blob names are made durable commits no item; the next run stores all", async () => {
      const files = ['a', 'b'].map((id) => ({ id, bytes: bytesOf(`eio-${id}`, 500) }));
      // the same root; every fsync of a directory (the names of the page's blobs) fails as a dying disk would
      const failing = createFsBlobStore({
        root: blobs.root,
        fsync: async (_fd, path) => {
          if (!/[0-9a-f]{64}$/.test(path)) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
        },
      });
      const { collectionId } = await seedCollection(db);
      const dying = engineFor(db, failing, [connectorOf(files)], { workers: 'none' });
      const first = await dying.start(collectionId);
      await dying.runOnce(first.runId).catch(() => undefined);
      expect(await itemRows(collectionId)).toEqual([]);
      await db.updateTable('runs').set({ status: 'failed' }).where('id', '=', first.runId).execute();
      const engine = engineFor(db, blobs, [connectorOf(files)], { workers: 'none' });
      const { runId } = await engine.start(collectionId);
      await engine.runOnce(runId);
      const rows = await itemRows(collectionId);
      expect(rows).toEqual(files.map((f) => ({ source_id: f.id, sha256: sha256(f.bytes) })));
      for (const f of files) expect(await readAll(await blobs.read(sha256(f.bytes)))).toEqual(f.bytes);
    });

    it('a page with one failing download records the others and reports the failure', async () => {
      const files = [
        { id: 'a', bytes: bytesOf('mixed-a', 300) },
        { id: 'b', bytes: bytesOf('mixed-b', 300), broken: true },
        { id: 'c', bytes: bytesOf('mixed-c', 300) },
      ];
      const { collectionId } = await seedCollection(db);
      const engine = engineFor(db, blobs, [connectorOf(files)], { workers: 'none' });
      const { runId } = await engine.start(collectionId);
      await engine.runOnce(runId);
      const rows = await itemRows(collectionId);
      expect(rows).toEqual([
        { source_id: 'a', sha256: sha256(files[0].bytes) },
        { source_id: 'c', sha256: sha256(files[2].bytes) },
      ]);
      for (const r of rows) expect(await blobs.has(r.sha256!)).toBe(true);
      const run = await db
        .selectFrom('runs')
        .select(['collected', 'failed'])
        .where('id', '=', runId)
        .executeTakeFirstOrThrow();
      expect(run).toEqual({ collected: 2, failed: 1 });
      const errors = await db
        .selectFrom('run_errors')
        .select(['source_id', 'reason'])
        .where('run_id', '=', runId)
        .execute();
      expect(errors).toEqual([{ source_id: 'b', reason: expect.stringContaining('the provider answered 500') }]);
    });

    it("notes the references of content the database holds until the page's sync before it is stored, in one go", async () => {
      const files = ['a', 'b', 'c'].map((id, i) => ({ id, bytes: bytesOf(`held-${id}`, 200 + i) }));
      const shas = files.map((f) => sha256(f.bytes));
      const notesWhenPut: Array<Array<{ sha256: string; refs: number }>> = [];
      const table = new SmallBlobRepo(db);
      const watched: SmallBlobTable = {
        get: (sha) => table.get(sha),
        size: (sha) => table.size(sha),
        present: (list) => table.present(list),
        delete: (sha) => table.delete(sha),
        async put(rows) {
          notesWhenPut.push(
            await db
              .selectFrom('blob_refs')
              .select(['sha256', 'refs'])
              .where(
                'sha256',
                'in',
                rows.map((r) => r.sha256),
              )
              .orderBy('sha256')
              .execute(),
          );
          await table.put(rows);
        },
      };
      const noteOne = vi.spyOn(BlobRefRepo.prototype, 'noteCommitted');
      try {
        const { collectionId } = await seedCollection(db);
        const engine = engineFor(db, withDbTier(blobs, watched, 16_384), [connectorOf(files)], { workers: 'none' });
        const { runId } = await engine.start(collectionId);
        await engine.runOnce(runId);
        expect((await itemRows(collectionId)).map((r) => r.sha256)).toEqual(shas);
        // the page's three blobs put at once, each noted (unreferenced yet) when put: a crash right then leaves notes
        // that the orphan sweep clears, never stored content that nothing notes
        expect(notesWhenPut).toEqual([[...shas].sort().map((sha) => ({ sha256: sha, refs: 0 }))]);
        expect(noteOne).not.toHaveBeenCalled();
        const refs = await db.selectFrom('blob_refs').select('refs').where('sha256', 'in', shas).execute();
        expect(refs.map((r) => Number(r.refs))).toEqual([1, 1, 1]);
      } finally {
        noteOne.mockRestore();
      }
    });
  });
}
