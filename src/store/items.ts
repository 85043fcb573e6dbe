import { PostgresAdapter, sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from './transaction.ts';
import { decodeCursor, encodeCursor } from './paging.ts';
import type { SyncTables } from './schema-sync.ts';
import { versionColumns, type PreviousVersion } from './item-versions.ts';

export { previousVersionsOf, versionColumns, type PreviousVersion } from './item-versions.ts';

export type ItemRow = Selectable<SyncTables['items']>;
export type NewItemRow = Insertable<SyncTables['items']>;
export type ItemPatch = Updateable<SyncTables['items']>;

/**
 * Items after a (first_seen_at, id) keyset position. The row-value form seeks in `items_page` (collection_id,
 * first_seen_at, id) on both stores; SQLite's plan for the equivalent `a > ? or (a = ? and id > ?)` uses the index
 * for collection_id only, so a deep page scanned every earlier item.
 */
function afterKey([at, id]: [string, string]) {
  return sql<boolean>`(first_seen_at, id) > (${at}, ${id})`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isPostgres(ex: Executor): boolean {
  return ex.getExecutor().adapter instanceof PostgresAdapter;
}

export interface ItemListFilter {
  kind?: string;
  custodian?: string;
}

export class ItemRepo {
  constructor(private readonly db: Executor) {}

  /**
   * `forUpdate`: inside a transaction that rewrites the row from what it reads (reference counts, versions), lock
   * it on PostgreSQL so that a concurrent purge cannot change it in between. SQLite transactions here start with
   * a write, which already holds the database's write lock.
   */
  async findByKey(
    collectionId: string,
    kind: string,
    sourceId: string,
    opts: { forUpdate?: boolean } = {},
  ): Promise<ItemRow | undefined> {
    const q = this.db
      .selectFrom('items')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .where('kind', '=', kind)
      .where('source_id', '=', sourceId);
    return (opts.forUpdate && isPostgres(this.db) ? q.forUpdate() : q).executeTakeFirst();
  }

  /**
   * findByKey for a page of source keys: one statement per 500 keys (rows of other kinds with the same source id
   * are left out here).
   */
  async findManyByKeys(
    collectionId: string,
    keys: Array<{ kind: string; sourceId: string }>,
    opts: { forUpdate?: boolean } = {},
  ): Promise<ItemRow[]> {
    const wanted = new Map(keys.map((k) => [`${k.kind}\u0000${k.sourceId}`, k]));
    // one order for every caller: two transactions locking rows of the same keys take them in the same order
    const unique = [...wanted.values()].sort((a, b) => compare(a.kind, b.kind) || compare(a.sourceId, b.sourceId));
    const found: ItemRow[] = [];
    for (let i = 0; i < unique.length; i += 500) {
      const chunk = unique.slice(i, i + 500);
      const rows = isPostgres(this.db)
        ? await this.keyProbes(collectionId, chunk, opts.forUpdate === true)
        : await this.db
            .selectFrom('items')
            .selectAll()
            .where('collection_id', '=', collectionId)
            // the kinds too: with them the unique (collection_id, kind, source_id) index seeks each key; without
            // them SQLite read every item of the collection for each page
            .where('kind', 'in', [...new Set(chunk.map((k) => k.kind))])
            .where('source_id', 'in', [...new Set(chunk.map((k) => k.sourceId))])
            .execute();
      found.push(...rows.filter((r) => wanted.has(`${r.kind}\u0000${r.source_id}`)));
    }
    return found;
  }

  /**
   * PostgreSQL: one probe of the unique (collection_id, kind, source_id) index per key. With `source_id IN (…)`
   * a table not analyzed yet (a new database's first sync: autovacuum analyzes a minute later at the earliest) was
   * read through the index on (collection_id, kind) alone, the ids a filter: every item of the collection for
   * each page, 40 ms a lookup at 27,000 items (issue 25). A lateral subquery with a limit is not flattened into a
   * join, so each key is an equality on all three columns whatever the statistics say.
   */
  private async keyProbes(
    collectionId: string,
    keys: Array<{ kind: string; sourceId: string }>,
    forUpdate: boolean,
  ): Promise<ItemRow[]> {
    const kinds = keys.map((k) => k.kind);
    const ids = keys.map((k) => k.sourceId);
    const { rows } = await sql<ItemRow>`select i.* from unnest(${kinds}::text[], ${ids}::text[]) as k(kind, source_id)
      cross join lateral (
        select * from items
        where collection_id = ${collectionId} and kind = k.kind and source_id = k.source_id
        limit 1 ${forUpdate ? sql`for update` : sql``}
      ) as i`.execute(this.db);
    return rows;
  }

  async getForUpdate(id: string): Promise<ItemRow | undefined> {
    const q = this.db.selectFrom('items').selectAll().where('id', '=', id);
    return (isPostgres(this.db) ? q.forUpdate() : q).executeTakeFirst();
  }

  async getById(id: string): Promise<ItemRow | undefined> {
    return this.db.selectFrom('items').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insert(row: NewItemRow): Promise<void> {
    await this.db.insertInto('items').values(row).execute();
  }

  /** Rows of one shape (the same columns given), 100 per statement. */
  async insertMany(rows: NewItemRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 100)
      await this.db
        .insertInto('items')
        .values(rows.slice(i, i + 100))
        .execute();
  }

  async update(id: string, patch: ItemPatch): Promise<void> {
    await this.db.updateTable('items').set(patch).where('id', '=', id).execute();
  }

  /** Stamps the items a listing run saw unchanged; one statement per 500 ids. */
  async markSeen(ids: string[], listingRunId: string): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await this.db
        .updateTable('items')
        .set({ last_seen_run_id: listingRunId })
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
    }
  }

  /**
   * A held tombstone gives up its content: compare-and-swap on holds_ref, so a run or another purge touching the
   * row meanwhile keeps counts exact. Returns the blob the row held when this statement changed it (to release),
   * or undefined when it changed nothing.
   */
  async purgeTombstoneContent(id: string, at: string): Promise<string | undefined> {
    const res = await this.db
      .updateTable('items')
      .set({ holds_ref: 0, content_state: 'purged', updated_at: at })
      .where('id', '=', id)
      .where('holds_ref', '=', 1)
      .where('tombstoned_at', 'is not', null)
      .returning('sha256')
      .executeTakeFirst();
    return res?.sha256 ?? undefined;
  }

  /**
   * Rewrites the item's version list, compare-and-swap on the list read before (`expected`): false when a run
   * superseded the item meanwhile (its new entry is kept).
   */
  async replaceVersions(
    id: string,
    expected: string | null,
    versions: PreviousVersion[],
    at: string,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable('items')
      .set({ ...versionColumns(versions), updated_at: at })
      .where('id', '=', id)
      .where('previous_versions', '=', expected)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Visible (not tombstoned) items of a collection, oldest first, keyset-paged. */
  async list(collectionId: string, filter: ItemListFilter, opts: { cursor?: string; limit: number }) {
    const after = decodeCursor(opts.cursor);
    let q = this.db
      .selectFrom('items')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .where('tombstoned_at', 'is', null);
    if (filter.kind) q = q.where('kind', '=', filter.kind);
    if (filter.custodian) {
      // the e-mail stored with the items (any case; provider ids hold no '@'), else the id: each seeks its index
      const c = filter.custodian;
      q = c.includes('@')
        ? q.where(sql<string>`lower(custodian_email)`, '=', c.toLowerCase())
        : q.where('custodian', '=', c);
    }
    if (after) q = q.where(afterKey(after));
    const rows = await q
      .orderBy('first_seen_at')
      .orderBy('id')
      .limit(opts.limit + 1)
      .execute();
    const page = rows.slice(0, opts.limit);
    const last = page[page.length - 1];
    return { rows: page, cursor: rows.length > opts.limit && last ? encodeCursor(last.first_seen_at, last.id) : null };
  }

  /** Stamps the stored items (if any) of these source keys with the listing mark; one statement per 500 keys. */
  async markPresent(
    collectionId: string,
    keys: Array<{ kind: string; sourceId: string }>,
    listingRunId: string,
  ): Promise<void> {
    for (let i = 0; i < keys.length; i += 500) {
      const chunk = keys.slice(i, i + 500);
      await this.db
        .updateTable('items')
        .set({ last_seen_run_id: listingRunId })
        .where('collection_id', '=', collectionId)
        .where(
          'source_id',
          'in',
          chunk.map((k) => k.sourceId),
        )
        .where('kind', 'in', [...new Set(chunk.map((k) => k.kind))])
        .execute();
    }
  }

  /**
   * Items of a custodian and kinds that the listing run `listingRunId` has not seen, not yet tombstoned (or not
   * yet marked deleted at the source), for a complete listing to treat as deleted.
   */
  async unseen(q: {
    collectionId: string;
    custodian: string;
    kinds: string[];
    listingRunId: string;
    already: 'tombstoned' | 'deleted_at_source';
    limit: number;
  }): Promise<Pick<ItemRow, 'id' | 'kind' | 'source_id'>[]> {
    return this.db
      .selectFrom('items')
      .select(['id', 'kind', 'source_id'])
      .where('collection_id', '=', q.collectionId)
      .where('custodian', '=', q.custodian)
      .where('kind', 'in', q.kinds)
      .where((eb) => eb.or([eb('last_seen_run_id', 'is', null), eb('last_seen_run_id', '!=', q.listingRunId)]))
      .where(q.already === 'tombstoned' ? 'tombstoned_at' : 'deleted_at_source', 'is', null)
      .orderBy('id')
      .limit(q.limit)
      .execute();
  }

  async get(collectionId: string, id: string): Promise<ItemRow | undefined> {
    return this.db
      .selectFrom('items')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Every item including tombstones, in pages (manifest). */
  async *all(collectionId: string, batch = 500): AsyncGenerator<ItemRow> {
    let after: [string, string] | undefined;
    for (;;) {
      let q = this.db.selectFrom('items').selectAll().where('collection_id', '=', collectionId);
      if (after) q = q.where(afterKey(after));
      const rows = await q.orderBy('first_seen_at').orderBy('id').limit(batch).execute();
      yield* rows;
      if (rows.length < batch) return;
      const last = rows[rows.length - 1];
      after = [last.first_seen_at, last.id];
    }
  }

  async countsByKind(collectionId: string) {
    return this.db
      .selectFrom('items')
      .select((eb) => ['kind', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('size').as('bytes')])
      .where('collection_id', '=', collectionId)
      .where('tombstoned_at', 'is', null)
      .groupBy('kind')
      .execute();
  }

  /** Tombstoned items that still hold their content (kept because of a legal hold), in id order after `after`. */
  async heldTombstones(collectionId: string, after: string, limit: number): Promise<ItemRow[]> {
    return this.db
      .selectFrom('items')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .where('tombstoned_at', 'is not', null)
      .where('holds_ref', '=', 1)
      .where('sha256', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** Items whose superseded versions still hold content, in id order after `after`. */
  async withVersionRefs(collectionId: string, after: string, limit: number): Promise<ItemRow[]> {
    return this.db
      .selectFrom('items')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .where('version_refs', '>', 0)
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /**
   * Deletes up to `limit` items of a collection and returns the rows this statement deleted, with their content
   * references: only those may be released (a concurrent purge of the same collection deletes the others).
   */
  async purgeBatch(collectionId: string, limit: number) {
    return this.db
      .deleteFrom('items')
      .where('id', 'in', (eb) =>
        eb.selectFrom('items').select('id').where('collection_id', '=', collectionId).limit(limit),
      )
      .returning(['id', 'sha256', 'holds_ref', 'previous_versions'])
      .execute();
  }

  async hasAny(collectionId: string): Promise<boolean> {
    return Boolean(
      await this.db
        .selectFrom('items')
        .select('id')
        .where('collection_id', '=', collectionId)
        .limit(1)
        .executeTakeFirst(),
    );
  }

  async deleteIds(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.db.deleteFrom('items').where('id', 'in', ids).execute();
  }
}

export class CursorRepo {
  constructor(private readonly db: Executor) {}

  async get(collectionId: string): Promise<{ value: unknown; fingerprint: string | null } | undefined> {
    const row = await this.db
      .selectFrom('collection_cursors')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .executeTakeFirst();
    return row ? { value: JSON.parse(row.value), fingerprint: row.filters_fingerprint } : undefined;
  }

  async put(collectionId: string, value: string, fingerprint: string, at: string): Promise<void> {
    await this.db
      .insertInto('collection_cursors')
      .values({ collection_id: collectionId, value, filters_fingerprint: fingerprint, updated_at: at })
      .onConflict((oc) =>
        oc.column('collection_id').doUpdateSet({ value, filters_fingerprint: fingerprint, updated_at: at }),
      )
      .execute();
  }

  async delete(collectionId: string): Promise<void> {
    await this.db.deleteFrom('collection_cursors').where('collection_id', '=', collectionId).execute();
  }
}
