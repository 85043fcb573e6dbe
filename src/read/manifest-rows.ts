import { sql } from 'kysely';
import type { Database } from '../store/db.ts';
import { eachPgRow } from '../store/direct.ts';
import { ItemRepo, type ItemRow } from '../store/items.ts';

/**
 * Items per query on PostgreSQL. Each batch's text is held until the query's last row arrives, so a batch's size
 * is what the process holds and what the young generation must carry across socket reads: at 500 items RSS grew
 * +34–38 MiB over 300,000 items, at 100 +11 MiB (`npm run bench -- scale-items`, docs/benchmarks.md).
 */
export const PG_BATCH = 100;

/**
 * Every item of the collection including tombstones, in (first_seen_at, id) order, each turned into its manifest
 * text by `render` as soon as it is read. Yields text: on SQLite one item's, on PostgreSQL a batch's (rows are
 * rendered as pg parses them and never gathered: see eachPgRow).
 */
export async function* renderedItems(
  db: Database,
  collectionId: string,
  render: (row: ItemRow) => string,
): AsyncGenerator<string> {
  let after: [string, string] | undefined;
  for (;;) {
    let q = db.selectFrom('items').selectAll().where('collection_id', '=', collectionId);
    if (after) q = q.where(sql<boolean>`(first_seen_at, id) > (${after[0]}, ${after[1]})`);
    let text = '';
    let last: ItemRow | undefined;
    const rows = eachPgRow(db, q.orderBy('first_seen_at').orderBy('id').limit(PG_BATCH).compile(), (row) => {
      text += render(row);
      last = row;
    });
    if (!rows) {
      for await (const row of new ItemRepo(db).all(collectionId)) yield render(row);
      return;
    }
    const n = await rows;
    if (text) yield text;
    if (n < PG_BATCH || !last) return;
    after = [last.first_seen_at, last.id];
  }
}
