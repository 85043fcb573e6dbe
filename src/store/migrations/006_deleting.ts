import { sql, type Kysely } from 'kysely';
import { reindexItem, type FrozenItem } from './frozen-006-search.ts';

const BATCH = 500;

/**
 * `collections.deleting_at`: a deletion is a state (sync/deletion.ts), so that a hold, a run or a second DELETE
 * arriving while it purges sees the collection as gone.
 * Superseded versions record why they were kept (`kept_for`, store/items.ts): entries written before held their
 * reference either for `arch` or for a hold; in a collection that is not `arch` now, one still holding its
 * reference can only have been kept for a hold (an arch collection switched to auto had its versions purged then).
 * Items that 005 renamed to `transcript` are indexed again, so that the kind filter finds them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('collections').addColumn('deleting_at', 'text').execute();
  await markHoldVersions(db);
  await reindexTranscripts(db);
}

async function markHoldVersions(db: Kysely<any>): Promise<void> {
  let after = '';
  for (;;) {
    const rows: { id: string; previous_versions: string }[] = await db
      .selectFrom('items as i')
      .innerJoin('collections as c', 'c.id', 'i.collection_id')
      .select(['i.id', 'i.previous_versions'])
      .where('c.type_sync', '!=', 'arch')
      .where('i.version_refs', '>', 0)
      .where('i.id', '>', after)
      .orderBy('i.id')
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      const versions = (JSON.parse(row.previous_versions) as Record<string, unknown>[]).map((v) => {
        const holdsRef = (v.holds_ref as boolean | undefined) ?? Boolean(v.sha256);
        return holdsRef && v.sha256 && !v.kept_for ? { ...v, kept_for: 'hold' } : v;
      });
      await db
        .updateTable('items')
        .set({ previous_versions: JSON.stringify(versions) })
        .where('id', '=', row.id)
        .execute();
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1].id;
  }
}

async function reindexTranscripts(db: Kysely<any>): Promise<void> {
  let after = '';
  for (;;) {
    const rows: FrozenItem[] = await db
      .selectFrom('items')
      .select(['id', 'collection_id', 'kind', 'name', 'path', 'custodian', 'metadata', 'text'])
      .where('kind', '=', 'transcript')
      .where('id', '>', after)
      .where('id', 'in', sql<string>`(select item_id from search_docs)`)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    // The content text already indexed is kept (read back from search_docs); only the words are rebuilt.
    for (const row of rows) await reindexItem(db, row);
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1].id;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('collections').dropColumn('deleting_at').execute();
}
