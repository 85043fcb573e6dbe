import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectionRepo } from '../../src/store/collections.ts';
import type { Database } from '../../src/store/db.ts';
import { up } from '../../src/store/migrations/035_filters_last.ts';
import { testDatabases } from '../support/databases.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

for (const database of testDatabases) {
  describe(`migration 035 on ${database.name}: a collection's filters stored after its other columns`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
    });
    afterAll(() => handle?.close());

    it('keeps every collection as it was, and tells which have filters', async () => {
      // the filters of 3,000 custodians: far larger than a page
      const filters = Object.fromEntries(
        Array.from({ length: 3000 }, (_, i) => [`user-${i}@example.com`, { all_selected: true, selected: [] }]),
      );
      const withFilters = await seedCollection(db, { filters });
      const without = await seedCollection(db, { account: 'other' });
      await db.updateTable('collections').set({ sync_filters: null }).where('id', '=', without.collectionId).execute();
      const before = await db.selectFrom('collections').selectAll().orderBy('id').execute();

      await up(db);

      expect(await db.selectFrom('collections').selectAll().orderBy('id').execute()).toEqual(before);
      const repo = new CollectionRepo(db);
      const head = await repo.getHead(withFilters.collectionId);
      expect(head?.has_filters).toBe(true);
      expect(head && 'sync_filters' in head).toBe(false);
      expect(head?.wallet_id).toBe(withFilters.walletId);
      expect((await repo.getHead(without.collectionId))?.has_filters).toBe(false);
      expect(JSON.parse((await repo.filtersOf(withFilters.collectionId))!)).toEqual(filters);
    });

    if (database.name === 'sqlite')
      it('has the filters last on a migrated database: a column stored after them is read through their overflow pages', async () => {
        const fresh = await database.open();
        try {
          const columns = await sql<{ name: string }>`pragma table_info(collections)`.execute(fresh.db);
          expect(columns.rows.at(-1)?.name).toBe('sync_filters');
        } finally {
          await fresh.close();
        }
      });
  });
}
