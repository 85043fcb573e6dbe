import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchItems, type SearchRequest } from '../../src/search/service.ts';
import type { Database } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';
import { seedAccountCollection, seedItem } from './fixtures.ts';

const KINDS = ['file', 'folder'];
const SPACERS = 12;

/**
 * Filters select and never rank: a filtered search scores each hit exactly as the same search without the filter
 * does (the kind and custodian terms in the match weigh nothing), in a window whose filtered candidates lie close
 * together in index order and in one where matches of another kind set them far apart.
 */
for (const database of testDatabases) {
  describe(`filtered search scores: ${database.name}`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    let acc: string;
    let col: string;
    const files: string[] = [];

    const search = (window: number, extra: Partial<SearchRequest> = {}) =>
      searchItems(db, acc, { query: 'heron', collection_ids: [col], size: 100, ...extra }, { kinds: KINDS, window });

    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
      ({ acc, col } = await seedAccountCollection(db, 'edrive'));
      files.push(await seedItem(db, acc, col, { kind: 'file', name: 'heron one.txt', content: 'a grey heron' }));
      for (let i = 0; i < SPACERS; i++) await seedItem(db, acc, col, { kind: 'folder', name: `heron folder ${i}` });
      files.push(await seedItem(db, acc, col, { kind: 'file', name: 'heron heron heron.txt', content: 'the heron' }));
      files.push(await seedItem(db, acc, col, { kind: 'file', name: 'heron two.txt', content: 'herons nest here' }));
    });

    afterAll(async () => {
      await handle?.close();
    });

    it('gives each filtered hit its unfiltered score, whatever the window', async () => {
      const unfiltered = await search(100);
      expect(unfiltered).toMatchObject({ total: files.length + SPACERS, totalRelation: 'eq' });
      const scoreOf = new Map(unfiltered.hits.map((h) => [h.item.id, h.score]));
      // windows 1 and 2: the first file and the next lie SPACERS folders apart; 3 and up: all three files
      for (const window of [1, 2, 3, 4, 10]) {
        const filtered = await search(window, { kinds: ['file'] });
        const inWindow = files.slice(0, window);
        expect(filtered.hits.map((h) => h.item.id).sort(), `window ${window}`).toEqual([...inWindow].sort());
        expect(
          filtered.hits.map((h) => [h.item.id, h.score]),
          `window ${window}`,
        ).toEqual(filtered.hits.map((h) => [h.item.id, scoreOf.get(h.item.id)]));
        // the name that says heron three times ranks first once it is in the window
        if (window >= 2) expect(filtered.hits[0].item.id, `window ${window}`).toBe(files[1]);
      }
    });
  });
}
