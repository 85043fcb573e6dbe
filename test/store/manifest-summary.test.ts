import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectionRepo } from '../../src/store/collections.ts';
import type { Database } from '../../src/store/db.ts';
import type { NewItemRow } from '../../src/store/items.ts';
import { manifestCsv, manifestJson } from '../../src/read/manifest.ts';
import { testDatabases } from '../support/databases.ts';
import { fixtureCollection, fixtureItem, insertItems } from './items-fixture.ts';

const SHA = 'a'.repeat(64);
const ITEMS = 1200;

/**
 * The manifest's summary comes first and counts every item, but is counted by the database: the first chunk is
 * written after reading a bounded number of rows, not one per item, and its counts are those of the items.
 */
describe.each(testDatabases)('manifest summary on $name', ({ open }) => {
  let handle: Awaited<ReturnType<typeof open>>;
  let db: Database;
  let collectionId: string;
  let accountId: string;
  let rowsRead = 0;
  const counting: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: (args) => {
      rowsRead += args.result.rows.length;
      return Promise.resolve(args.result);
    },
  };

  beforeAll(async () => {
    handle = await open();
    db = handle.db;
    const ids = await fixtureCollection(db);
    collectionId = ids.collectionId;
    accountId = ids.accountId;
    const version = (sha: string | null, holds: boolean) => ({ sha256: sha, holds_ref: holds, run_id: 'r0' });
    const rows: NewItemRow[] = Array.from({ length: ITEMS }, (_, n) => {
      const content = n % 4 !== 3; // three in four have content
      return fixtureItem(ids, n, {
        kind: n % 10 === 0 ? 'folder' : 'file',
        sha256: content ? SHA : null,
        size: content ? 100 + n : 7,
        content_state: content ? 'stored' : 'none',
        hash_verified: !content ? null : n % 7 < 3 ? 1 : n % 7 === 3 ? 0 : null,
        deleted_at_source: n % 50 === 1 ? '2026-03-01T00:00:00.000Z' : null,
        tombstoned_at: n % 100 === 2 ? '2026-03-01T00:00:00.000Z' : null,
        previous_versions:
          n % 200 === 5
            ? JSON.stringify([version(SHA, true), version(SHA, false), version(null, false)])
            : n % 300 === 7
              ? JSON.stringify([version(SHA, true)])
              : null,
      });
    });
    await insertItems(db, rows);
  });
  afterAll(() => handle?.close());

  it('writes its first chunk, the summary, before reading the items', async () => {
    const collection = (await new CollectionRepo(db).get(accountId, collectionId))!;
    for (const format of [manifestJson, manifestCsv]) {
      rowsRead = 0;
      const chunks = format(db.withPlugin(counting), collection, new Date());
      await chunks.next();
      expect(rowsRead).toBeLessThan(100);
      await chunks.return(undefined);
    }
  });

  it('counts every item by what it holds', async () => {
    const collection = (await new CollectionRepo(db).get(accountId, collectionId))!;
    let text = '';
    for await (const chunk of manifestJson(db, collection, new Date('2026-04-01T00:00:00Z'))) text += chunk;
    const n = Array.from({ length: ITEMS }, (_, i) => i);
    const content = n.filter((i) => i % 4 !== 3);
    // 6 items with versions (5, 205, …, 1005) hold three each, one retained; 4 more (7, 307, 607, 907) hold one, retained
    expect(JSON.parse(text).counts).toEqual({
      items: ITEMS,
      items_by_kind: { folder: ITEMS / 10, file: ITEMS - ITEMS / 10 },
      bytes: content.reduce((s, i) => s + 100 + i, 0),
      hash_verified: content.filter((i) => i % 7 < 3).length,
      hash_mismatch: content.filter((i) => i % 7 === 3).length,
      hash_not_provided: content.filter((i) => i % 7 > 3).length,
      without_content: ITEMS / 4,
      deleted_at_source: ITEMS / 50,
      tombstoned: ITEMS / 100,
      exceptions: 0,
      superseded_versions: 6 * 3 + 4,
      superseded_versions_retained: 6 + 4,
    });
  });
});
