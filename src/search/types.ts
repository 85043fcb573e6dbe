import type { Kysely } from 'kysely';
import type { SearchDocument } from './document.ts';
import type { ParsedQuery } from './query.ts';

/** A database handle or a transaction (the index is written in the item's own transaction). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the search index is written through any handle or transaction
export type Executor = Kysely<any>;

export interface SearchFilters {
  accountId: string;
  workspaceId?: string;
  collectionIds?: string[];
  kinds?: string[];
  custodians?: string[];
  /** ISO-8601 instants, compared with the item's source modified time (its created time when it has none). */
  dateFrom?: string;
  dateTo?: string;
  includeDeleted: boolean;
}

export interface SearchPage {
  offset: number;
  size: number;
  /**
   * How many matches a search considers: it counts them up to this bound and ranks the first `window` matches in
   * the index's own order (broadly, the order items were first indexed), so that its cost is bounded by the
   * window and not by the number of matches. A query with at most `window` matches is counted and ranked whole.
   */
  window: number;
}

export interface SearchHit {
  itemId: string;
  score: number;
  /** The indexed original text, for highlights. */
  texts: { name: string; path: string; meta: string; itemText: string; contentText: string };
}

export interface SearchResult {
  hits: SearchHit[];
  /** Every match when `totalRelation` is `eq`; the page's window (more match) when it is `gte`. */
  total: number;
  totalRelation: 'eq' | 'gte';
}

/** One interface, one implementation per database (embedded SQLite FTS5, PostgreSQL tsvector + GIN). */
export interface SearchIndex {
  /** Adds or replaces the document of an item. */
  upsert(ex: Executor, doc: SearchDocument): Promise<void>;
  removeItems(ex: Executor, itemIds: string[]): Promise<void>;
  removeCollection(ex: Executor, collectionId: string): Promise<void>;
  search(ex: Executor, query: ParsedQuery, filters: SearchFilters, page: SearchPage): Promise<SearchResult>;
}

/** Documents that hold the query's words as one exact phrase rank above those where the words are scattered. */
export const PHRASE_BONUS = 1000;

/** A hit as both databases' queries select it, with the matches counted up to the window and one more (`n`). */
export interface HitRow {
  item_id: string;
  score: number;
  n: number;
  name: string;
  path: string;
  meta_text: string;
  item_text: string;
  content_text: string;
}

/** `n` matches counted up to `window + 1`: more than `window` means at least `window` (`gte`). */
export function windowResult(rows: HitRow[], n: number, window: number): SearchResult {
  return {
    total: Math.min(n, window),
    totalRelation: n > window ? 'gte' : 'eq',
    hits: rows.map((r) => ({
      itemId: r.item_id,
      score: Number(r.score),
      texts: { name: r.name, path: r.path, meta: r.meta_text, itemText: r.item_text, contentText: r.content_text },
    })),
  };
}
