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
}

export interface SearchHit {
  itemId: string;
  score: number;
  /** The indexed original text, for highlights. */
  texts: { name: string; path: string; meta: string; itemText: string; contentText: string };
}

export interface SearchResult {
  hits: SearchHit[];
  total: number;
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
