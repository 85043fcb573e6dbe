import { PostgresAdapter, sql, SqliteAdapter } from 'kysely';
import { insertPostgresDocs, insertSqliteDocs } from './bulk.ts';
import { buildDocument, type IndexableItem } from './document.ts';
import { createPostgresSearchIndex } from './postgres.ts';
import { createSqliteSearchIndex } from './sqlite.ts';
import type { Executor, SearchIndex } from './types.ts';

export type { IndexableItem } from './document.ts';
export { createDocumentReader, type DocumentReader } from './documents.ts';
export { extractContentText } from './extract.ts';
export type { Executor, SearchFilters, SearchHit, SearchIndex, SearchResult } from './types.ts';

export type SearchBackend = 'sqlite' | 'postgres';

export function createSearchIndex(backend: SearchBackend): SearchIndex {
  switch (backend) {
    case 'sqlite':
      return createSqliteSearchIndex();
    case 'postgres':
      return createPostgresSearchIndex();
    default: {
      const never: never = backend;
      throw new Error(`unknown search backend ${String(never)}`);
    }
  }
}

/**
 * The backend of a database handle or of a transaction. A transaction is a different Kysely instance than the
 * database it came from, so store/db.ts dialectOf() cannot answer for it; its adapter can.
 */
export function backendOf(ex: Executor): SearchBackend {
  const adapter = ex.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return 'postgres';
  if (adapter instanceof SqliteAdapter) return 'sqlite';
  throw new Error(`no search index for the database adapter ${adapter.constructor.name}`);
}

const indexes: Record<SearchBackend, SearchIndex> = {
  sqlite: createSqliteSearchIndex(),
  postgres: createPostgresSearchIndex(),
};

export function searchIndexFor(ex: Executor): SearchIndex {
  return indexes[backendOf(ex)];
}

/**
 * Indexes an item in the caller's transaction, right after the item row is written.
 * contentText: the text of the item's content (extractContentText); null when it has none or it was purged;
 * undefined keeps the content text indexed before (metadata-only changes, unchanged content).
 */
export async function indexItem(trx: Executor, item: IndexableItem, contentText?: string | null): Promise<void> {
  let content = contentText;
  if (content === undefined) {
    const { rows } = await sql<{
      content_text: string | null;
    }>`select content_text from search_docs where item_id = ${item.id}`.execute(trx);
    content = rows[0]?.content_text ?? null;
  }
  await searchIndexFor(trx).upsert(trx, buildDocument(item, content));
}

/**
 * Indexes items that have no document yet (rows this transaction inserted), a page at a time: what indexItem does
 * for each, in a few statements.
 */
export async function indexNewItems(
  trx: Executor,
  entries: Array<{ item: IndexableItem; contentText: string | null }>,
): Promise<void> {
  if (entries.length === 0) return;
  const docs = entries.map((e) => buildDocument(e.item, e.contentText));
  const backend = backendOf(trx);
  switch (backend) {
    case 'sqlite':
      return insertSqliteDocs(trx, docs);
    case 'postgres':
      return insertPostgresDocs(trx, docs);
    default: {
      const never: never = backend;
      throw new Error(`unknown search backend ${String(never)}`);
    }
  }
}

/** Drops items from the index (items deleted by a purge). */
export async function removeItemsFromIndex(trx: Executor, itemIds: string[]): Promise<void> {
  if (itemIds.length > 0) await searchIndexFor(trx).removeItems(trx, itemIds);
}

/** Drops every document of a collection (collection or workspace deletion). */
export async function removeCollectionFromIndex(trx: Executor, collectionId: string): Promise<void> {
  await searchIndexFor(trx).removeCollection(trx, collectionId);
}
