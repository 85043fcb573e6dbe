import type { Database } from '../src/store/db.ts';
import { newId } from '../src/store/ids.ts';
import { indexNewItems } from '../src/search/index.ts';
import { fixtureItem } from '../test/store/items-fixture.ts';

const STEMS = ['budget', 'minutes', 'contract', 'invoice', 'forecast', 'roadmap', 'memo', 'notes', 'draft', 'review'];
/** Items per transaction, and per multi-row insert (~30 parameters a row: under SQLite's 32,766 and PostgreSQL's 65,535). */
const BATCH = 5000;
const INSERT_ROWS = 1000;

/**
 * Writes `count` small file items into a collection through the repositories' tables and the search index, as a
 * sync would leave them but without a provider: custodians of 100 items each (`seed-custodian-<n>`), one folder in
 * ten, "quarterly" in half of the names (a common term) and "zebrafish" in one item in 10,000 (a rare one).
 */
export async function seedItems(db: Database, collectionId: string, count: number): Promise<void> {
  const col = await db
    .selectFrom('collections')
    .select(['account_id'])
    .where('id', '=', collectionId)
    .executeTakeFirstOrThrow();
  const base = Date.now();
  for (let start = 0; start < count; start += BATCH) {
    await db.transaction().execute(async (trx) => {
      const rows = [];
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const at = new Date(base + i).toISOString();
        const custodian = `seed-custodian-${Math.floor(i / 100)}`;
        const folder = i % 10 === 9;
        const words = [
          STEMS[i % STEMS.length],
          i % 2 ? 'quarterly' : 'weekly',
          i % 10_000 === 5_000 ? 'zebrafish' : '',
        ];
        const name = `${words.filter(Boolean).join(' ')} ${i}${folder ? '' : '.txt'}`;
        rows.push(
          fixtureItem({ accountId: col.account_id, collectionId }, i, {
            id: newId('itm'),
            kind: folder ? 'folder' : 'file',
            source_id: `seed-${i}`,
            name,
            path: `/drives/${custodian}/root:/Documents/${name}`,
            custodian,
            size: folder ? null : 200 + (i % 400),
            mime_type: folder ? null : 'text/plain',
            created_datetime: at,
            modified_datetime: at,
            collected_datetime: at,
            run_id: 'run_seed',
            metadata: JSON.stringify({ createdBy: custodian, department: STEMS[(i >> 3) % STEMS.length] }),
            first_seen_at: at,
            updated_at: at,
          }),
        );
      }
      for (let k = 0; k < rows.length; k += INSERT_ROWS)
        await trx
          .insertInto('items')
          .values(rows.slice(k, k + INSERT_ROWS))
          .execute();
      // the item writer's bulk path for items new to the index: a few multi-row inserts, not a statement per item
      await indexNewItems(
        trx,
        rows.map((item) => ({ item, contentText: null })),
      );
    });
  }
}
