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
