import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchItems, type SearchRequest } from '../../src/search/service.ts';
import type { Database } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';
import { seedAccountCollection, seedItem, type ItemSpec } from './fixtures.ts';

const KINDS = ['file', 'folder', 'transcript', 'meeting_chat', 'chat_message'];

/**
 * The kinds and custodians filters, checked against the request's spec written out here: an item is found when the
 * query matches it, its kind is one of `kinds`, and its custodian id or its e-mail equals one of `custodians` in any
 * case; tombstoned items only with include_deleted. Filters select and never rank: a filtered search lists its hits
 * in the order the same search without the filters gives them.
 */
const ITEMS: Array<ItemSpec & { key: string }> = [
  { key: 'a1', kind: 'file', name: 'otter report.txt', custodian: 'u-alice', custodianEmail: 'Alice@Example.com' },
  { key: 'a2', kind: 'transcript', name: 'otter call.vtt', custodian: 'u-alice', custodianEmail: 'alice@example.com' },
  { key: 'a3', kind: 'folder', name: 'otter', custodian: 'u-alice', custodianEmail: null },
  { key: 'b1', kind: 'file', name: 'otter otter plan.txt', custodian: 'bob@example.com', custodianEmail: null },
  { key: 'b2', kind: 'meeting_chat', name: 'otter chat', text: 'otters and beavers', custodian: 'BOB@example.com' },
  { key: 'c1', kind: 'chat_message', name: 'beaver note', text: 'an otter swims', custodian: 'u-carol' },
  // a name holding what the kind and custodian tokens look like is no kind and no custodian
  { key: 'n1', kind: 'folder', name: 'otter kfile ctranscript', custodian: null },
  { key: 'd1', kind: 'file', name: 'otter gone.txt', custodian: 'u-alice', tombstoned: true },
  { key: 'x1', kind: 'file', name: 'beaver only.txt', custodian: 'u-alice', custodianEmail: 'alice@example.com' },
];

type Spec = (typeof ITEMS)[number];
const words = (s: Spec) => `${s.name} ${s.text ?? ''}`.toLowerCase().match(/[a-z0-9]+/g) ?? ([] as string[]);
const queries: Record<string, (s: Spec) => boolean> = {
  otter: (s) => words(s).includes('otter'),
  'otter OR beaver': (s) => words(s).some((w) => w === 'otter' || w === 'beaver'),
  'otter NOT plan': (s) => words(s).includes('otter') && !words(s).includes('plan'),
  'ott*': (s) => words(s).some((w) => w.startsWith('ott')),
  'otter kind:file': (s) => words(s).includes('otter') && s.kind === 'file',
};
const filterCases: Array<Pick<SearchRequest, 'kinds' | 'custodians' | 'include_deleted'>> = [
  { kinds: ['file'] },
  { kinds: ['file', 'transcript'] },
  { kinds: ['folder'] },
  { kinds: ['meeting_chat', 'chat_message'] },
  { custodians: ['u-alice'] },
  { custodians: ['ALICE@example.COM'] },
  { custodians: ['bob@example.com'] },
  { custodians: ['u-carol', ' u-alice '] },
  { custodians: ['nobody@example.com'] },
  { kinds: ['file'], custodians: ['alice@example.com', 'bob@example.com'] },
  { kinds: ['file'], custodians: ['u-alice'], include_deleted: true },
];

function expected(f: (typeof filterCases)[number], s: Spec): boolean {
  if (s.tombstoned && !f.include_deleted) return false;
  if (f.kinds && !f.kinds.includes(s.kind)) return false;
  if (f.custodians) {
    const mine = [s.custodian, s.custodianEmail].filter((c): c is string => !!c).map((c) => c.toLowerCase());
    if (!f.custodians.some((c) => mine.includes(c.trim().toLowerCase()))) return false;
  }
  return true;
}

for (const database of testDatabases) {
  describe(`search kinds and custodians filters: ${database.name}`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    let acc: string;
    let col: string;
    const keyOf = new Map<string, string>();

    const keys = async (query: string, extra: Partial<SearchRequest>) =>
      (await searchItems(db, acc, { query, collection_ids: [col], size: 100, ...extra }, { kinds: KINDS })).hits.map(
        (h) => keyOf.get(h.item.id),
      );

    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
      ({ acc, col } = await seedAccountCollection(db, 'edrive'));
      for (const { key, ...spec } of ITEMS) keyOf.set(await seedItem(db, acc, col, spec), key);
    });

    afterAll(async () => {
      await handle?.close();
    });

    for (const [query, matches] of Object.entries(queries))
      it(`finds exactly the items the filters name, in unfiltered order: ${query}`, async () => {
        for (const f of filterCases) {
          const want = ITEMS.filter((s) => matches(s) && expected(f, s)).map((s) => s.key);
          const unfiltered = await keys(query, { include_deleted: f.include_deleted });
          const got = await keys(query, f);
          expect([...got].sort(), JSON.stringify(f)).toEqual([...want].sort());
          expect(got, JSON.stringify(f)).toEqual(unfiltered.filter((k) => want.includes(k!)));
        }
      });
  });
}
