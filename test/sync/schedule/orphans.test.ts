import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type BlobStore, type FsBlobStore } from '../../../src/blobs/index.ts';
import type { CollectContext, CollectEvent, Connector } from '../../../src/connectors/types.ts';
import type { Database } from '../../../src/store/db.ts';
import { RunRepo } from '../../../src/store/runs.ts';
import { sweepOrphans } from '../../../src/sync/schedule/orphans.ts';
import { testDatabases } from '../../support/databases.ts';
import { bytesOf, createFakeConnector, sha256 } from '../../support/fake-connector.ts';
import { engineFor, seedCollection, silentLog, useSyncStore } from '../../support/sync-fixtures.ts';
import { KEPT_CONTENT_BYTES } from '../../../src/sync/execution/content.ts';

const HOUR = 60 * 60_000;

async function commit(blobs: BlobStore, bytes: Buffer): Promise<string> {
  const w = await blobs.writer();
  await w.write(bytes);
  return (await w.commit()).sha256;
}

for (const database of testDatabases) {
  describe(`orphan sweep of the content store (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    let dir: string;
    // orphan files are what these tests look at: every blob a file
    useSyncStore(database, (s) => ({ db, blobs, dir } = s), { files: true });

    const sweep = (now = new Date()) => sweepOrphans({ db, blobs, log: silentLog, now }, HOUR);
    const refRow = (sha: string) => db.selectFrom('blob_refs').selectAll().where('sha256', '=', sha).executeTakeFirst();

    it('removes old temp files and old unreferenced blobs; keeps young ones and referenced ones', async () => {
      const old = new Date(Date.now() - 2 * HOUR).toISOString();
      const young = new Date(Date.now() - 5 * 60_000).toISOString();
      const orphan = await commit(blobs, bytesOf('orphan-old', 1000));
      const fresh = await commit(blobs, bytesOf('orphan-young', 1000));
      const used = await commit(blobs, bytesOf('orphan-used', 1000));
      await db
        .insertInto('blob_refs')
        .values([
          { sha256: orphan, refs: 0, size: 1000, updated_at: old },
          { sha256: fresh, refs: 0, size: 1000, updated_at: young },
          { sha256: used, refs: 1, size: 1000, updated_at: old },
        ])
        .execute();
      const tmp = path.join(dir, 'tmp');
      fs.mkdirSync(tmp, { recursive: true });
      const staleTemp = path.join(tmp, 'stale.part');
      const liveTemp = path.join(tmp, 'live.part');
      fs.writeFileSync(staleTemp, 'partial');
      fs.writeFileSync(liveTemp, 'partial');
      fs.utimesSync(staleTemp, new Date(Date.now() - 2 * HOUR), new Date(Date.now() - 2 * HOUR));

      const result = await sweep();
      expect(result.temp).toBeGreaterThanOrEqual(1);
      expect(result.blobs).toBeGreaterThanOrEqual(1);
      expect(await blobs.has(orphan)).toBe(false);
      expect(await refRow(orphan)).toBeUndefined();
      expect(await blobs.has(fresh)).toBe(true);
      expect(await blobs.has(used)).toBe(true);
      expect(fs.existsSync(staleTemp)).toBe(false);
      expect(fs.existsSync(liveTemp)).toBe(true);
      expect((await refRow(used))!.refs).toBe(1);
    });

    it('runs when the engine starts its background work', async () => {
      const orphan = await commit(blobs, bytesOf('orphan-at-boot', 300));
      await db
        .insertInto('blob_refs')
        .values({ sha256: orphan, refs: 0, size: 300, updated_at: new Date(Date.now() - 2 * HOUR).toISOString() })
        .execute();
      const engine = engineFor(db, blobs, [], { workers: 'inline' });
      engine.startBackground();
      try {
        for (let i = 0; i < 400 && (await blobs.has(orphan)); i++) await new Promise((r) => setTimeout(r, 5));
        expect(await blobs.has(orphan)).toBe(false);
      } finally {
        await engine.stop();
      }
    });

    it('never deletes content an item holds, even with a zero count', async () => {
      const sha = await commit(blobs, bytesOf('orphan-claimed', 700));
      const { collectionId, accountId } = await seedCollection(db);
      const at = new Date().toISOString();
      await db
        .insertInto('items')
        .values({
          id: 'itm_claimed',
          collection_id: collectionId,
          account_id: accountId,
          kind: 'file',
          source_id: 'x',
          name: 'x',
          path: '/x',
          custodian: null,
          size: 700,
          mime_type: null,
          sha256: sha,
          md5: null,
          provider_hash_type: null,
          provider_hash_value: null,
          hash_verified: null,
          created_datetime: null,
          modified_datetime: null,
          collected_datetime: at,
          deleted_at_source: null,
          tombstoned_at: null,
          content_state: 'stored',
          holds_ref: 1,
          run_id: 'run_x',
          version: null,
          metadata: '{}',
          text: null,
          previous_versions: null,
          first_seen_at: at,
          updated_at: at,
        })
        .execute();
      await db
        .insertInto('blob_refs')
        .values({ sha256: sha, refs: 0, size: 700, updated_at: new Date(Date.now() - 2 * HOUR).toISOString() })
        .execute();
      await sweep();
      expect(await blobs.has(sha)).toBe(true);
      expect(await refRow(sha)).toBeDefined();
    });

    it('a run that died between committing a blob and writing its item leaves an orphan the sweep removes once old', async () => {
      // Larger than what stays in memory for its text (content.ts), so that the text is read back from the store
      const bytes = bytesOf('orphan-crash', KEPT_CONTENT_BYTES + 5000);
      // Text extraction reads the blob back before the item is written: hang there, as a process that died would.
      let hung = false;
      let release!: (err: Error) => void;
      const stuck: BlobStore = {
        ...blobs,
        writer: (o) => blobs.writer(o),
        has: (s) => blobs.has(s),
        stat: (s) => blobs.stat(s),
        delete: (s) => blobs.delete(s),
        read: async (s, r) => {
          if (s !== sha256(bytes)) return blobs.read(s, r);
          hung = true;
          return new Promise<Readable>((_resolve, reject) => (release = reject));
        },
      };
      const base = createFakeConnector({ source: () => ({ units: [] }) });
      const connector: Connector = {
        ...base,
        async *collect(_ctx: CollectContext): AsyncIterable<CollectEvent> {
          yield {
            type: 'item',
            item: {
              kind: 'file',
              sourceId: 'doc',
              name: 'doc.txt',
              path: '/doc.txt',
              custodian: 'u1',
              mimeType: 'text/plain',
              size: bytes.length,
              version: 'v1',
              metadata: {},
            },
            content: { open: async () => ({ body: Readable.from([bytes]), partial: false }) },
          };
        },
      };
      const { collectionId } = await seedCollection(db);
      const engine = engineFor(db, stuck, [connector], { workers: 'none' });
      const { runId } = await engine.start(collectionId);
      const running = engine.runOnce(runId);
      for (let i = 0; i < 400 && !hung; i++) await new Promise((r) => setTimeout(r, 5));
      expect(hung).toBe(true);
      const sha = sha256(bytes);
      expect(await blobs.has(sha)).toBe(true);
      expect(await refRow(sha)).toMatchObject({ refs: 0 });
      expect(await db.selectFrom('items').select('id').where('collection_id', '=', collectionId).execute()).toEqual([]);

      // A sweep now (another process booting) leaves the live run's blob alone; one an hour later removes it.
      await sweep();
      expect(await blobs.has(sha)).toBe(true);
      await sweep(new Date(Date.now() + 2 * HOUR));
      expect(await blobs.has(sha)).toBe(false);
      expect(await refRow(sha)).toBeUndefined();

      // Let the abandoned run end: cancelled underneath, it writes nothing more.
      await new RunRepo(db).cancelActive(collectionId, new Date().toISOString());
      release(new Error('process gone'));
      await running;
      expect(await db.selectFrom('items').select('id').where('collection_id', '=', collectionId).execute()).toEqual([]);
    });
  });
}
