import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { describe, expect, it } from 'vitest';
import type { FsBlobStore } from '../../../src/blobs/fs.ts';
import { indexItem, searchIndexFor } from '../../../src/search/index.ts';
import { parseQuery } from '../../../src/search/query.ts';
import type { Database } from '../../../src/store/db.ts';
import { HoldRepo } from '../../../src/store/holds.ts';
import { newId } from '../../../src/store/ids.ts';
import { previousVersionsOf } from '../../../src/store/items.ts';
import { migrations } from '../../../src/store/migrations/index.ts';
import { purgeCollectionData, purgeUnheldTombstones } from '../../../src/sync/deletion/purge.ts';
import { testDatabases, underMigrationLock } from '../../support/databases.ts';
import { bytesOf, createFakeConnector, sha256, type FakeSource } from '../../support/fake-connector.ts';
import { engineFor, seedCollection, syncOnce, useSyncStore } from '../../support/sync-fixtures.ts';

const now = () => new Date().toISOString();

for (const database of testDatabases) {
  describe(`deletion and purge races (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    useSyncStore(database, (s) => ({ db, blobs } = s));
    const sources = new Map<string, FakeSource>();
    let current = '';
    const connector = createFakeConnector({ source: () => sources.get(current)! });
    const sync = async (collectionId: string, source: FakeSource) => {
      sources.set(collectionId, source);
      current = collectionId;
      const engine = engineFor(db, blobs, [connector], { workers: 'none' });
      expect((await syncOnce(engine, collectionId)).outcome.status).toBe('succeeded');
      return engine;
    };
    const refs = async (sha: string) =>
      (await db.selectFrom('blob_refs').select('refs').where('sha256', '=', sha).executeTakeFirst())?.refs ?? 0;
    const count = async (collectionId: string) =>
      (await db.selectFrom('items').select('id').where('collection_id', '=', collectionId).execute()).length;

    it('two purges of one collection at once release each reference exactly once', async () => {
      const shared = bytesOf('race-shared', 2000);
      const keeper = await seedCollection(db);
      await sync(keeper.collectionId, { units: [{ items: [{ kind: 'file', sourceId: 'copy', content: shared }] }] });
      const doomed = await seedCollection(db);
      const many = Array.from({ length: 700 }, (_, i) => ({
        kind: 'file',
        sourceId: `f${i}`,
        content: bytesOf(`race-own-${i}`, 32),
        hash: 'none' as const,
      }));
      await sync(doomed.collectionId, {
        units: [{ items: [...many, { kind: 'file', sourceId: 'memo', content: shared }] }],
      });
      expect(await refs(sha256(shared))).toBe(2);

      await Promise.all([
        purgeCollectionData(db, blobs, doomed.collectionId, now),
        purgeCollectionData(db, blobs, doomed.collectionId, now),
        purgeCollectionData(db, blobs, doomed.collectionId, now),
      ]);
      expect(await count(doomed.collectionId)).toBe(0);
      expect(await refs(sha256(shared))).toBe(1);
      expect(await blobs.has(sha256(shared))).toBe(true);
      expect(await db.selectFrom('blob_refs').select('sha256').where('refs', '<', 0).execute()).toEqual([]);
      expect(await blobs.has(sha256(bytesOf('race-own-7', 32)))).toBe(false);
    });

    it('a hold committed after the purge looked at holds stops the batch in flight', async () => {
      const s = await seedCollection(db, { typeSync: 'auto' });
      const files = Array.from({ length: 30 }, (_, i) => ({
        kind: 'file',
        sourceId: `t${i}`,
        content: bytesOf(`tomb-${i}`, 50),
        hash: 'none' as const,
      }));
      await sync(s.collectionId, { units: [{ items: files }] });
      const first = await new HoldRepo(db).create(s.accountId, {
        name: 'h1',
        description: '',
        workspaceId: null,
        collectionIds: [s.collectionId],
        clientId: 'cli',
      });
      await sync(s.collectionId, {
        units: [{ items: [], deleted: files.map((f) => ({ kind: 'file', sourceId: f.sourceId })) }],
      });
      const heldTombstones = async () =>
        (
          await db
            .selectFrom('items')
            .select('id')
            .where('collection_id', '=', s.collectionId)
            .where('holds_ref', '=', 1)
            .where('tombstoned_at', 'is not', null)
            .execute()
        ).length;
      expect(await heldTombstones()).toBe(30);
      await db.updateTable('legal_holds').set({ released_at: now() }).where('id', '=', first).execute();

      let placed = false;
      const purged = await purgeUnheldTombstones(db, blobs, s.collectionId, {
        now,
        // The purge's own look at holds answers "not held", then a hold is acknowledged before the batch runs.
        isHeld: async (id) => {
          const held = await new HoldRepo(db).isHeld(id);
          if (!placed) {
            placed = true;
            await new HoldRepo(db).create(s.accountId, {
              name: 'h2',
              description: '',
              workspaceId: null,
              collectionIds: [id],
              clientId: 'cli',
            });
          }
          return held;
        },
      });
      expect(placed).toBe(true);
      expect(purged).toBe(0);
      expect(await heldTombstones()).toBe(30);
      expect(await blobs.has(sha256(bytesOf('tomb-3', 50)))).toBe(true);
    });

    it('arch versions stay after a switch to auto; only the versions a hold kept are purged on release', async () => {
      const s = await seedCollection(db, { typeSync: 'arch' });
      const v = (n: number) => bytesOf(`doc-v${n}`, 300);
      const file = (n: number) => ({
        units: [{ items: [{ kind: 'file', sourceId: 'doc', content: v(n), version: String(n) }] }],
      });
      await sync(s.collectionId, file(1));
      await sync(s.collectionId, file(2));
      await db.updateTable('collections').set({ type_sync: 'auto' }).where('id', '=', s.collectionId).execute();
      const hold = await new HoldRepo(db).create(s.accountId, {
        name: 'h',
        description: '',
        workspaceId: null,
        collectionIds: [s.collectionId],
        clientId: 'cli',
      });
      await sync(s.collectionId, file(3));
      const row = () =>
        db.selectFrom('items').selectAll().where('collection_id', '=', s.collectionId).executeTakeFirstOrThrow();
      expect(previousVersionsOf(await row()).map((x) => [x.sha256, x.kept_for, x.holds_ref])).toEqual([
        [sha256(v(1)), 'arch', true],
        [sha256(v(2)), 'hold', true],
      ]);

      await db.updateTable('legal_holds').set({ released_at: now() }).where('id', '=', hold).execute();
      expect(await purgeUnheldTombstones(db, blobs, s.collectionId, { now })).toBe(1);
      const after = previousVersionsOf(await row());
      expect(after.map((x) => [x.kept_for, x.holds_ref, x.content_state])).toEqual([
        ['arch', true, 'stored'],
        ['hold', false, 'purged'],
      ]);
      expect((await row()).version_refs).toBe(1);
      expect(await blobs.has(sha256(v(1)))).toBe(true);
      expect(await blobs.has(sha256(v(2)))).toBe(false);
      // Another auto run (which purges what no hold keeps) still leaves the arch version alone.
      await sync(s.collectionId, file(3));
      expect(previousVersionsOf(await row())[0]).toMatchObject({ kept_for: 'arch', holds_ref: true });
      expect(await refs(sha256(v(1)))).toBe(1);
    });

    it('a deletion left in the deleting state is finished when an engine starts', async () => {
      const s = await seedCollection(db);
      const content = bytesOf('interrupted', 500);
      const engine = await sync(s.collectionId, { units: [{ items: [{ kind: 'file', sourceId: 'a', content }] }] });
      // What a process stopped right after marking the collection leaves behind.
      await db.updateTable('collections').set({ deleting_at: now() }).where('id', '=', s.collectionId).execute();
      await expect(engine.start(s.collectionId)).rejects.toMatchObject({ status: 404 });
      await expect(engine.enqueue(s.collectionId, 'schedule')).rejects.toMatchObject({ status: 404 });
      expect(await engine.scheduler.tick()).toBe(0);

      const background = engineFor(db, blobs, [connector], { tuning: { schedulerTickMs: 60_000 } });
      background.startBackground();
      try {
        for (let i = 0; i < 200; i++) {
          if (!(await db.selectFrom('collections').select('id').where('id', '=', s.collectionId).executeTakeFirst()))
            break;
          await new Promise((r) => setTimeout(r, 25));
        }
      } finally {
        await background.stop();
      }
      expect(
        await db.selectFrom('collections').select('id').where('id', '=', s.collectionId).executeTakeFirst(),
      ).toBeUndefined();
      expect(await count(s.collectionId)).toBe(0);
      expect(await db.selectFrom('runs').select('id').where('collection_id', '=', s.collectionId).execute()).toEqual(
        [],
      );
      expect(await blobs.has(sha256(content))).toBe(false);
    });
  });

  describe(`migration 006_deleting on data written before it (${database.name})`, () => {
    it('indexes renamed transcripts under their new kind and marks versions a hold kept', async () => {
      const opened = await database.open();
      try {
        const { db } = opened;
        const migrator = new Migrator({
          db,
          provider: { getMigrations: async () => migrations },
          ...(opened.schema && { migrationTableSchema: opened.schema }),
        });
        const locked = <T>(work: () => Promise<T>) => underMigrationLock(db, database.name === 'postgres', work);
        expect((await locked(() => migrator.migrateTo('004_listing'))).error).toBeUndefined();
        const legacy = db as unknown as Kysely<any>;
        const s = await seedCollection(db, { typeSync: 'auto' });
        const at = now();
        const row = (kind: string, sourceId: string, previous: unknown[] | null) => ({
          id: newId('itm'),
          collection_id: s.collectionId,
          account_id: s.accountId,
          kind,
          source_id: sourceId,
          name: `meeting ${sourceId}`,
          path: `/${sourceId}`,
          custodian: 'u1',
          size: 1,
          mime_type: null,
          sha256: 'c'.repeat(64),
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
          run_id: 'run_1',
          version: '1',
          metadata: '{}',
          text: null,
          previous_versions: previous && JSON.stringify(previous),
          last_seen_run_id: null,
          first_seen_at: at,
          updated_at: at,
        });
        const old = (n: number) => ({
          sha256: String(n).repeat(64),
          size: n,
          version: String(n),
          run_id: `run_${n}`,
          collected_datetime: at,
          replaced_at: at,
        });
        const rows = [row('closed_caption', 'cc', null), row('file', 'f', [old(1)])];
        await legacy.insertInto('items').values(rows).execute();
        await indexItem(db, rows[0], null);

        expect((await locked(() => migrator.migrateToLatest())).error).toBeUndefined();
        const hits = await searchIndexFor(db).search(
          db,
          parseQuery('kind:transcript', { kinds: ['transcript', 'file'] }),
          { accountId: s.accountId, includeDeleted: false },
          { offset: 0, size: 10, window: 100 },
        );
        expect(hits.hits.map((h) => h.itemId)).toEqual([rows[0].id]);
        const file = await db.selectFrom('items').selectAll().where('id', '=', rows[1].id).executeTakeFirstOrThrow();
        // In a collection that is not arch, a version still holding its reference was kept for a hold.
        expect(previousVersionsOf(file)).toMatchObject([{ sha256: '1'.repeat(64), kept_for: 'hold', holds_ref: true }]);
      } finally {
        await opened.close();
      }
    });
  });
}
