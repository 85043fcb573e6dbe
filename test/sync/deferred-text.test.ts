import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { BlobStore, FsBlobStore } from '../../src/blobs/index.ts';
import type { CollectEvent, Connector } from '../../src/connectors/types.ts';
import type { Database } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';
import { createFakeConnector } from '../support/fake-connector.ts';
import { engineFor, seedCollection, useSyncStore } from '../support/sync-fixtures.ts';
import { KEPT_CONTENT_BYTES } from '../../src/sync/execution/content.ts';

const FILES = ['a', 'b', 'c', 'd'].map((id) => ({ id, text: `note ${id} mentions zebra${id}` }));
/** Padding that takes content past what stays in memory (KEPT_CONTENT_BYTES): its text is read back. */
const LARGE = ' '.repeat(KEPT_CONTENT_BYTES);
const texts = (pad: string) => FILES.map((f) => ({ source_id: f.id, content_text: f.text + pad }));

const TEXT_FILE = { kind: 'file', custodian: 'u1', mimeType: 'text/plain', version: 'v1', metadata: {} };

function connectorOf(pad = LARGE): Connector {
  const base = createFakeConnector({ source: () => ({ units: [] }) });
  return {
    ...base,
    async *collect(): AsyncIterable<CollectEvent> {
      for (const f of FILES) {
        const bytes = Buffer.from(f.text + pad);
        yield {
          type: 'item',
          item: { ...TEXT_FILE, sourceId: f.id, name: `${f.id}.txt`, path: `/${f.id}.txt`, size: bytes.length },
          content: { open: async () => ({ body: Readable.from([bytes]), partial: false }) },
        };
      }
      yield { type: 'checkpoint', state: { done: true } };
    },
  };
}

/** The store with its reads (the search text's extraction) held until `release()`; `sync` may fail (a crash). */
function heldReads(blobs: FsBlobStore, opts: { dieOnSync?: boolean; reads?: string[] } = {}) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let readsStarted = 0;
  const store: BlobStore = {
    ...blobs,
    writer: (o) => blobs.writer(o),
    has: (s) => blobs.has(s),
    stat: (s) => blobs.stat(s),
    delete: (s) => blobs.delete(s),
    async read(s, r) {
      opts.reads?.push(s);
      readsStarted += 1;
      // every item's extraction is under way before any finishes: the writer did not wait on one to take the next
      if (readsStarted === FILES.length) release();
      await gate;
      return blobs.read(s, r);
    },
    sync: opts.dieOnSync ? () => Promise.reject(new Error('process gone')) : (shas) => blobs.sync(shas),
  };
  return store;
}

for (const database of testDatabases) {
  describe(`search text off the writer's path (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    useSyncStore(database, (s) => ({ db, blobs } = s));

    const documents = async (collectionId: string) =>
      (
        await sql<{ source_id: string; content_text: string | null }>`
          select i.source_id, d.content_text from items i left join search_docs d on d.item_id = i.id
          where i.collection_id = ${collectionId} order by i.source_id`.execute(db)
      ).rows;

    it('writes each item with the text of its content, extracted while the writer took the next items', async () => {
      const { collectionId } = await seedCollection(db);
      const engine = engineFor(db, heldReads(blobs), [connectorOf()], { workers: 'none' });
      const { runId } = await engine.start(collectionId);
      await engine.runOnce(runId);
      expect(await documents(collectionId)).toEqual(texts(LARGE));
    });

    it('takes the text of small content from the bytes it downloaded, without reading the store back', async () => {
      const { collectionId } = await seedCollection(db);
      const reads: string[] = [];
      const engine = engineFor(db, heldReads(blobs, { reads }), [connectorOf('')], { workers: 'none' });
      const { runId } = await engine.start(collectionId);
      await engine.runOnce(runId);
      expect(await documents(collectionId)).toEqual(texts(''));
      expect(reads).toEqual([]);
    });

    it('a crash while texts are extracted loses no search document: the next run writes items and documents', async () => {
      const { collectionId } = await seedCollection(db);
      const dying = engineFor(db, heldReads(blobs, { dieOnSync: true }), [connectorOf()], { workers: 'none' });
      const first = await dying.start(collectionId);
      await dying.runOnce(first.runId).catch(() => undefined);
      expect(await documents(collectionId)).toEqual([]);
      await db.updateTable('runs').set({ status: 'failed' }).where('id', '=', first.runId).execute();
      const engine = engineFor(db, blobs, [connectorOf()], { workers: 'none' });
      const { runId } = await engine.start(collectionId);
      await engine.runOnce(runId);
      expect(await documents(collectionId)).toEqual(texts(LARGE));
    });
  });
}
