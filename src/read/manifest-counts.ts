import { sql } from 'kysely';
import type { Database } from '../store/db.ts';
import { previousVersionsOf } from '../store/items.ts';

/** The manifest summary's item counts (ManifestSummary['counts'] without `exceptions`). */
export interface ItemCounts {
  items: number;
  items_by_kind: Record<string, number>;
  bytes: number;
  hash_verified: number;
  hash_mismatch: number;
  hash_not_provided: number;
  without_content: number;
  deleted_at_source: number;
  tombstoned: number;
  /** superseded versions listed, and how many of them still have their content */
  superseded_versions: number;
  superseded_versions_retained: number;
}

const BATCH = 500;
const when = (cond: ReturnType<typeof sql>) => sql<number>`sum(case when ${cond} then 1 else 0 end)`;

/**
 * Counted by the database (one aggregate per kind), so that the manifest's first byte does not wait for a walk of
 * every item: only items with superseded versions are read, to count their versions.
 */
export async function itemCounts(db: Database, collectionId: string): Promise<ItemCounts> {
  const rows = await db
    .selectFrom('items')
    .select([
      'kind',
      sql<number>`count(*)`.as('n'),
      sql<number>`sum(case when sha256 is not null then coalesce(size, 0) else 0 end)`.as('bytes'),
      when(sql`sha256 is not null and hash_verified = 1`).as('verified'),
      when(sql`sha256 is not null and hash_verified = 0`).as('mismatch'),
      when(sql`sha256 is not null and hash_verified is null`).as('not_provided'),
      when(sql`sha256 is null`).as('without_content'),
      when(sql`deleted_at_source is not null`).as('deleted'),
      when(sql`tombstoned_at is not null`).as('tombstoned'),
    ])
    .where('collection_id', '=', collectionId)
    .groupBy('kind')
    .orderBy('kind')
    .execute();
  const counts: ItemCounts = {
    items: 0,
    items_by_kind: {},
    bytes: 0,
    hash_verified: 0,
    hash_mismatch: 0,
    hash_not_provided: 0,
    without_content: 0,
    deleted_at_source: 0,
    tombstoned: 0,
    superseded_versions: 0,
    superseded_versions_retained: 0,
  };
  for (const r of rows) {
    counts.items += Number(r.n);
    counts.items_by_kind[r.kind] = Number(r.n);
    counts.bytes += Number(r.bytes ?? 0);
    counts.hash_verified += Number(r.verified ?? 0);
    counts.hash_mismatch += Number(r.mismatch ?? 0);
    counts.hash_not_provided += Number(r.not_provided ?? 0);
    counts.without_content += Number(r.without_content ?? 0);
    counts.deleted_at_source += Number(r.deleted ?? 0);
    counts.tombstoned += Number(r.tombstoned ?? 0);
  }
  for (let after = ''; ;) {
    const page = await db
      .selectFrom('items')
      .select(['id', 'previous_versions'])
      .where('collection_id', '=', collectionId)
      .where('previous_versions', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const r of page)
      for (const v of previousVersionsOf(r)) {
        counts.superseded_versions += 1;
        if (v.holds_ref && v.sha256) counts.superseded_versions_retained += 1;
      }
    if (page.length < BATCH) return counts;
    after = page[page.length - 1].id;
  }
}
