import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchItems, type SearchRequest } from '../../src/search/service.ts';
import type { Database } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';
import { seedAccountCollection, seedItem } from './fixtures.ts';

const KINDS = ['file', 'folder', 'transcript'];

/**
 * A search counts matches up to its window and ranks the first `window` of them in index order; beyond the window
 * `total` is the window and `totalRelation` says `gte`. The window is 10,000 in the service; a small one here.
 */
for (const database of testDatabases) {
  describe(`search result window: ${database.name}`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    let acc: string;
    let col: string;
    /** The items holding "heron", in the order they were indexed; the last one names it three times. */
    const herons: string[] = [];
    const egrets: string[] = [];

    const search = (query: string, window: number, extra: Partial<SearchRequest> = {}) =>
      searchItems(db, acc, { query, collection_ids: [col], ...extra }, { kinds: KINDS, window });

    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
      ({ acc, col } = await seedAccountCollection(db, 'edrive'));
      for (let i = 0; i < 4; i++)
        herons.push(await seedItem(db, acc, col, { kind: 'file', name: `report ${i}.txt`, content: `a heron ${i}` }));
      herons.push(
        await seedItem(db, acc, col, { kind: 'file', name: 'heron heron heron.txt', content: 'the heron count' }),
      );
      for (let i = 0; i < 2; i++)
        egrets.push(await seedItem(db, acc, col, { kind: 'file', name: `egret ${i}.txt`, content: 'an egret' }));
    });

    afterAll(async () => {
      await handle?.close();
    });

    it('counts every match and ranks them all when they fit the window', async () => {
      const all = await search('heron', 10);
      expect(all).toMatchObject({ total: 5, totalRelation: 'eq' });
      expect(all.hits[0].item.id).toBe(herons[4]);
      expect(all.hits.map((h) => h.item.id).sort()).toEqual([...herons].sort());
      // exactly as many matches as the window: still every match
      expect(await search('heron', 5)).toMatchObject({ total: 5, totalRelation: 'eq' });
    });

    it('says gte with the window as total when more items match, and keeps a rare term exact', async () => {
      const capped = await search('heron', 3);
      expect(capped).toMatchObject({ total: 3, totalRelation: 'gte' });
      // the first three matches in index order, ranked among themselves: the best match, indexed last, is not one
      expect(capped.hits.map((h) => h.item.id).sort()).toEqual(herons.slice(0, 3).sort());
      expect(await search('egret', 3)).toMatchObject({ total: 2, totalRelation: 'eq' });
      expect(await search('heron OR egret', 6)).toMatchObject({ total: 6, totalRelation: 'gte' });
    });

    it('applies the window with item-level filters too', async () => {
      const capped = await search('heron', 2, { kinds: ['file'], custodians: ['alice@example.com'] });
      expect(capped).toMatchObject({ total: 2, totalRelation: 'gte' });
      expect(capped.hits.map((h) => h.item.id).sort()).toEqual(herons.slice(0, 2).sort());
      expect(await search('egret', 2, { kinds: ['file'] })).toMatchObject({ total: 2, totalRelation: 'eq' });
    });

    it('pages through the window and no further', async () => {
      const first = await search('heron', 3, { size: 2 });
      expect(first.hits).toHaveLength(2);
      expect(first.cursor).not.toBeNull();
      const second = await search('heron', 3, { size: 2, cursor: first.cursor! });
      expect(second.hits).toHaveLength(1);
      expect(second.cursor).toBeNull();
      expect([...first.hits, ...second.hits].map((h) => h.item.id).sort()).toEqual(herons.slice(0, 3).sort());
      // the same pages in the same order each time
      expect((await search('heron', 3, { size: 2 })).hits.map((h) => h.item.id)).toEqual(
        first.hits.map((h) => h.item.id),
      );
    });
  });
}
