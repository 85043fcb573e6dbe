import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PG_BATCH, renderedItems } from '../../src/read/manifest-rows.ts';
import type { Database } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';
import { fixtureCollection, fixtureItem, insertItems } from './items-fixture.ts';

const postgres = testDatabases.filter((d) => d.name === 'postgres');

/**
 * Issue #25: streaming the manifest on PostgreSQL must not gather a query's rows in pg's result (held across socket
 * reads, they were promoted by V8's scavenges: +166 MiB RSS over 300,000 items). Each row is rendered as it is
 * parsed: pg's result never receives one, and the rows parsed ahead of the text handed on stay within one batch.
 */
describe.skipIf(postgres.length === 0).each(postgres)('manifest rows on $name', (database) => {
  let db: Database;
  let close: () => Promise<void>;
  let collectionId: string;
  const expected: string[] = [];
  beforeAll(async () => {
    ({ db, close } = await database.open());
    const ids = await fixtureCollection(db);
    collectionId = ids.collectionId;
    // first_seen_at out of id order, many items sharing one: the manifest's order is (first_seen_at, id)
    const rows = Array.from({ length: 3 * PG_BATCH + 7 }, (_, n) =>
      fixtureItem(ids, n, { first_seen_at: `2026-01-0${1 + ((n * 7) % 5)}T00:00:00.000Z` }),
    );
    await insertItems(db, rows);
    expected.push(
      ...rows
        .map((r) => [r.first_seen_at, r.id] as const)
        .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
        .map(([, id]) => id),
    );
  }, 60_000);
  afterAll(() => close());

  it('renders every item in order as it is parsed, never gathering a batch in pg', async () => {
    let parsed = 0;
    // pg's own per-row hook (not in its types): each DataRow message parsed
    const query = pg.Query.prototype as unknown as { handleDataRow(msg: unknown): void };
    const handleDataRow = query.handleDataRow;
    const parse = vi.spyOn(query, 'handleDataRow').mockImplementation(function (this: unknown, msg) {
      parsed += 1;
      handleDataRow.call(this, msg);
    });
    const addRow = vi.spyOn(pg.Result.prototype as unknown as { addRow(row: unknown): void }, 'addRow');
    try {
      const ids: string[] = [];
      for await (const text of renderedItems(db, collectionId, (r) => `${r.id}\n`)) {
        ids.push(...text.split('\n').filter(Boolean));
        // every row parsed so far is in the text handed on: none is held past its batch
        expect(parsed).toBe(ids.length);
      }
      expect(ids).toEqual(expected);
      expect(parsed).toBe(expected.length);
      expect(addRow).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
      addRow.mockRestore();
    }
  });
});
