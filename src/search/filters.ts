import { sql, type RawBuilder } from 'kysely';
import type { SearchFilters } from './types.ts';

/**
 * The request's filters as SQL over `items i` joined to `collections c`; the same on both databases.
 * The account condition is always first: nothing outside the caller's account is ever considered.
 */
export function filterConditions(f: SearchFilters): RawBuilder<unknown>[] {
  const conds: RawBuilder<unknown>[] = [sql`i.account_id = ${f.accountId}`];
  if (!f.includeDeleted) conds.push(sql`i.tombstoned_at is null`);
  if (f.workspaceId) conds.push(sql`c.workspace_id = ${f.workspaceId}`);
  if (f.collectionIds?.length) conds.push(sql`i.collection_id in (${sql.join(f.collectionIds)})`);
  if (f.kinds?.length) conds.push(sql`i.kind in (${sql.join(f.kinds)})`);
  if (f.custodians?.length) {
    // an id or the e-mail stored with the item, any case
    const wanted = sql.join(f.custodians.map((c) => c.trim().toLowerCase()));
    conds.push(sql`(lower(i.custodian) in (${wanted}) or lower(i.custodian_email) in (${wanted}))`);
  }
  // Compared to the second on the UTC text: providers write `…:05Z` and `…:05.120Z` for times that must compare alike.
  const when = sql`substr(coalesce(i.modified_datetime, i.created_datetime), 1, 19)`;
  if (f.dateFrom) conds.push(sql`${when} >= ${f.dateFrom.slice(0, 19)}`);
  if (f.dateTo) conds.push(sql`${when} <= ${f.dateTo.slice(0, 19)}`);
  return conds;
}

/**
 * Without item-level filters (kinds, custodians, dates) the same conditions over `search_docs d` joined to
 * `collections c` alone, so that a match is not joined to its item: the account through the collection, and the
 * account's tombstoned items (few; a partial index holds them) left out by id. Undefined when an item filter applies.
 */
export function docFilterConditions(f: SearchFilters): RawBuilder<unknown>[] | undefined {
  if (f.kinds?.length || f.custodians?.length || f.dateFrom || f.dateTo) return undefined;
  const conds: RawBuilder<unknown>[] = [sql`c.account_id = ${f.accountId}`];
  if (!f.includeDeleted)
    conds.push(
      sql`d.item_id not in (select t.id from items t where t.account_id = ${f.accountId} and t.tombstoned_at is not null)`,
    );
  if (f.workspaceId) conds.push(sql`c.workspace_id = ${f.workspaceId}`);
  if (f.collectionIds?.length) conds.push(sql`d.collection_id in (${sql.join(f.collectionIds)})`);
  return conds;
}
