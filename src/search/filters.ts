import { sql, type RawBuilder } from 'kysely';
import type { Query } from './query.ts';
import { custodianToken, kindToken } from './tokens.ts';
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
 * Without date filters the same conditions over `search_docs d` joined to `collections c` alone, so that a match is
 * not joined to its item: the account through the collection, and the account's tombstoned items (few; a partial
 * index holds them) left out by id. Kinds and custodians are then terms of the full-text query (`withFilterTerms`).
 * Undefined when a date filter applies.
 */
export function docFilterConditions(f: SearchFilters): RawBuilder<unknown>[] | undefined {
  if (f.dateFrom || f.dateTo) return undefined;
  const conds: RawBuilder<unknown>[] = [sql`c.account_id = ${f.accountId}`];
  if (!f.includeDeleted)
    conds.push(
      sql`d.item_id not in (select t.id from items t where t.account_id = ${f.accountId} and t.tombstoned_at is not null)`,
    );
  if (f.workspaceId) conds.push(sql`c.workspace_id = ${f.workspaceId}`);
  if (f.collectionIds?.length) conds.push(sql`d.collection_id in (${sql.join(f.collectionIds)})`);
  return conds;
}

/**
 * The query with the kinds and custodians filters as terms the index answers: every document holds its item's
 * kind and its custodian's id and e-mail as tokens (document.ts), written with the item row, so `kind in (…)` is
 * `(kind:a OR kind:b)` and the custodian filter (an id or the e-mail, any case) is `(custodian:x OR custodian:y)`.
 */
export function withFilterTerms(q: Query, f: SearchFilters): Query {
  const terms: Query[] = [];
  const anyOf = (field: 'kind' | 'custodian', values: string[], token: (v: string) => string): Query => {
    const children = [...new Set(values.map(token))].map((t): Query => ({ type: 'exact', field, token: t, value: t }));
    return children.length === 1 ? children[0] : { type: 'or', children };
  };
  if (f.kinds?.length) terms.push(anyOf('kind', f.kinds, kindToken));
  if (f.custodians?.length) terms.push(anyOf('custodian', f.custodians, custodianToken));
  return terms.length ? { type: 'and', include: [q, ...terms], exclude: [] } : q;
}
