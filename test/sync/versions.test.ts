import { describe, expect, it } from 'vitest';
import { type FsBlobStore } from '../../src/blobs/index.ts';
import type { Database } from '../../src/store/db.ts';
import { HoldRepo } from '../../src/store/holds.ts';
import { previousVersionsOf, type ItemRow } from '../../src/store/items.ts';
import { purgeCollectionData, purgeUnheldTombstones } from '../../src/sync/deletion/purge.ts';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, sha256, type FakeItem, type FakeSource } from '../support/fake-connector.ts';
import { engineFor, seedCollection, syncOnce, useSyncStore } from '../support/sync-fixtures.ts';

for (const database of testDatabases) {
  describe(`superseded versions and legal holds (${database.name})`, () => {
    // SQLite has one writer at a time, so the race the PostgreSQL-only case provokes cannot happen there: that case
    // is not declared for SQLite at all (rather than reported as skipped).
    const itOnPostgres = database.name === 'postgres' ? it : ((() => undefined) as unknown as typeof it);
    let db: Database;
    let blobs: FsBlobStore;
    useSyncStore(database, (s) => ({ db, blobs } = s));

    // No isHeld is injected: the engine must read the legal_holds table itself, inside its transactions.
    const setup = async (items: FakeItem[], typeSync: 'one' | 'auto' | 'arch') => {
      let current: FakeSource = { units: [{ items }] };
      const connector = createFakeConnector({ source: () => current });
      const seeded = await seedCollection(db, { typeSync });
      const engine = engineFor(db, blobs, [connector], { workers: 'none' });
      const sync = async (next?: FakeItem[]) => {
        if (next) current = { units: [{ items: next }] };
        const { runId, outcome } = await syncOnce(engine, seeded.collectionId);
        expect(outcome.status).toBe('succeeded');
        return runId;
      };
      const hold = () =>
        new HoldRepo(db).create(seeded.accountId, {
          name: 'Matter',
          description: '',
          workspaceId: null,
          collectionIds: [seeded.collectionId],
          clientId: 'cli_test',
        });
      return { ...seeded, engine, sync, hold };
    };
    const item = async (collectionId: string, sourceId: string): Promise<ItemRow> =>
      db
        .selectFrom('items')
        .selectAll()
        .where('collection_id', '=', collectionId)
        .where('source_id', '=', sourceId)
        .executeTakeFirstOrThrow();
    const refsOf = async (sha: string) =>
      (await db.selectFrom('blob_refs').select('refs').where('sha256', '=', sha).executeTakeFirst())?.refs ?? 0;

    it("an auto collection under a hold keeps a modified file's old content; releasing the hold purges it but keeps its record", async () => {
      const v1 = bytesOf('ver-hold-v1', 4000);
      const v2 = bytesOf('ver-hold-v2', 4000);
      const s = await setup(
        [{ kind: 'file', sourceId: 'f', name: 'plan.txt', content: v1, version: '1', metadata: { rev: 1 } }],
        'auto',
      );
      const firstRun = await s.sync();
      const holdId = await s.hold();
      const secondRun = await s.sync([
        { kind: 'file', sourceId: 'f', name: 'plan.txt', content: v2, version: '2', metadata: { rev: 2 } },
      ]);

      const row = await item(s.collectionId, 'f');
      expect(row).toMatchObject({ sha256: sha256(v2), version: '2', run_id: secondRun, version_refs: 1 });
      const [old] = previousVersionsOf(row);
      expect(old).toMatchObject({
        sha256: sha256(v1),
        version: '1',
        holds_ref: true,
        content_state: 'stored',
        run_id: firstRun,
        replaced_by_run_id: secondRun,
        name: 'plan.txt',
        metadata: { rev: 1 },
      });
      expect(old.md5).toMatch(/^[0-9a-f]{32}$/);
      expect(await blobs.has(sha256(v1))).toBe(true);
      expect(await refsOf(sha256(v1))).toBe(1);

      expect(await new HoldRepo(db).release(s.accountId, holdId, 'cli_test')).toBe(true);
      expect(await purgeUnheldTombstones(db, blobs, s.collectionId, { now: () => new Date().toISOString() })).toBe(1);
      expect(await blobs.has(sha256(v1))).toBe(false);
      expect(await blobs.has(sha256(v2))).toBe(true);
      const after = await item(s.collectionId, 'f');
      expect(after.version_refs).toBe(0);
      expect(previousVersionsOf(after)).toMatchObject([
        { sha256: sha256(v1), holds_ref: false, content_state: 'purged', run_id: firstRun },
      ]);
    });

    it('without a hold, auto replaces content and keeps no versions', async () => {
      const v1 = bytesOf('ver-nohold-v1', 3000);
      const v2 = bytesOf('ver-nohold-v2', 3000);
      const s = await setup([{ kind: 'file', sourceId: 'f', content: v1, version: '1' }], 'auto');
      await s.sync();
      await s.sync([{ kind: 'file', sourceId: 'f', content: v2, version: '2' }]);
      const row = await item(s.collectionId, 'f');
      expect(row).toMatchObject({ previous_versions: null, version_refs: 0, sha256: sha256(v2) });
      expect(await blobs.has(sha256(v1))).toBe(false);
    });

    it("keeps an edited message's text and metadata in arch, and in auto or one under a hold, but not in auto without one", async () => {
      const message = (text: string, status: string): FakeItem => ({
        kind: 'chat_message',
        sourceId: 'msg',
        text,
        version: `${status}:${text}`,
        metadata: { status, sender: 'a@x' },
      });
      for (const [typeSync, held, kept] of [
        ['arch', false, true],
        ['auto', true, true],
        ['one', true, true],
        ['auto', false, false],
      ] as const) {
        const s = await setup([message('see you at 10', 'Normal')], typeSync);
        const first = await s.sync();
        if (held) await s.hold();
        const second = await s.sync([message('see you at 11', 'Edited')]);
        const row = await item(s.collectionId, 'msg');
        expect(row.text, typeSync).toBe('see you at 11');
        expect(row.run_id, typeSync).toBe(second);
        if (!kept) {
          expect(row.previous_versions, typeSync).toBeNull();
          continue;
        }
        expect(previousVersionsOf(row), `${typeSync} held=${held}`).toMatchObject([
          {
            text: 'see you at 10',
            metadata: { status: 'Normal', sender: 'a@x' },
            version: 'Normal:see you at 10',
            sha256: null,
            holds_ref: false,
            content_state: 'none',
            run_id: first,
            replaced_by_run_id: second,
          },
        ]);
        expect(row.version_refs).toBe(0);
      }
    });

    it('arch records a rename as a version holding its own reference, and a purge releases every one', async () => {
      const bytes = bytesOf('ver-rename', 2500);
      const s = await setup(
        [{ kind: 'file', sourceId: 'r', name: 'draft.txt', content: bytes, version: 'c1', metadata: { etag: 1 } }],
        'arch',
      );
      const first = await s.sync();
      await s.sync([
        { kind: 'file', sourceId: 'r', name: 'final.txt', content: bytes, version: 'c1', metadata: { etag: 2 } },
      ]);
      const row = await item(s.collectionId, 'r');
      expect(row).toMatchObject({ name: 'final.txt', path: '/fake/final.txt', sha256: sha256(bytes), version_refs: 1 });
      expect(previousVersionsOf(row)).toMatchObject([
        {
          name: 'draft.txt',
          path: '/fake/draft.txt',
          sha256: sha256(bytes),
          holds_ref: true,
          metadata: { etag: 1 },
          run_id: first,
        },
      ]);
      expect(await refsOf(sha256(bytes))).toBe(2);
      // Unchanged on a third run: nothing more is recorded.
      await s.sync();
      expect(previousVersionsOf(await item(s.collectionId, 'r'))).toHaveLength(1);
      await purgeCollectionData(db, blobs, s.collectionId, () => new Date().toISOString());
      expect(await refsOf(sha256(bytes))).toBe(0);
      expect(await blobs.has(sha256(bytes))).toBe(false);
    });

    it('arch keeps every content version in order, each with its run and hashes', async () => {
      const versions = [0, 1, 2].map((i) => bytesOf(`ver-chain-${i}`, 1000 + i));
      const s = await setup([{ kind: 'file', sourceId: 'c', content: versions[0], version: '0' }], 'arch');
      const runs = [await s.sync()];
      for (const i of [1, 2])
        runs.push(await s.sync([{ kind: 'file', sourceId: 'c', content: versions[i], version: String(i) }]));
      const row = await item(s.collectionId, 'c');
      expect(row.version_refs).toBe(2);
      expect(previousVersionsOf(row).map((v) => [v.sha256, v.run_id, v.replaced_by_run_id, v.size])).toEqual([
        [sha256(versions[0]), runs[0], runs[1], 1000],
        [sha256(versions[1]), runs[1], runs[2], 1001],
      ]);
      for (const b of versions) expect(await blobs.has(sha256(b))).toBe(true);
    });

    itOnPostgres('a hold being created waits for a write transaction that decided no hold applies', async () => {
      const s = await setup([], 'auto');
      let released!: () => void;
      const gate = new Promise<void>((r) => (released = r));
      let decided!: (held: boolean) => void;
      const decision = new Promise<boolean>((r) => (decided = r));
      const writer = db.transaction().execute(async (trx) => {
        decided(await new HoldRepo(trx).isHeldLocked(s.collectionId));
        await gate;
      });
      expect(await decision).toBe(false);
      let created = false;
      const hold = s.hold().then(() => (created = true));
      await new Promise((r) => setTimeout(r, 200));
      expect(created).toBe(false);
      released();
      await writer;
      await hold;
      expect(created).toBe(true);
      expect(await db.transaction().execute((trx) => new HoldRepo(trx).isHeldLocked(s.collectionId))).toBe(true);
    });
  });
}
