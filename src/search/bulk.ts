// The documents of items new to the index, written a page at a time (the item writer's flush): one multi-row
// insert per table instead of a lookup and inserts per item. Only for items that have no document yet.
import { sql } from 'kysely';
import type { SearchDocument } from './document.ts';
import { toTsvector } from './postgres.ts';
import type { Executor } from './types.ts';

/** Rows per statement: 8 parameters each, far under SQLite's and PostgreSQL's limits. */
const CHUNK = 250;

export async function insertSqliteDocs(ex: Executor, docs: SearchDocument[]): Promise<void> {
  for (let i = 0; i < docs.length; i += CHUNK) {
    const chunk = docs.slice(i, i + CHUNK);
    const { rows } = await sql<{ doc_id: number; item_id: string }>`
      insert into search_docs (item_id, collection_id, name, path, meta_text, item_text, content_text)
      values ${sql.join(
        chunk.map(
          (d) =>
            sql`(${d.itemId}, ${d.collectionId}, ${d.original.name}, ${d.original.path}, ${d.original.meta}, ${d.original.itemText}, ${d.original.contentText})`,
        ),
      )}
      returning doc_id, item_id`.execute(ex);
    const docIds = new Map(rows.map((r) => [r.item_id, r.doc_id]));
    await sql`
      insert into search_fts (rowid, name, path, meta, body, kind, custodian)
      values ${sql.join(
        chunk.map((d) => {
          const w = d.words;
          return sql`(${docIds.get(d.itemId)}, ${w.name.join(' ')}, ${w.path.join(' ')}, ${w.meta.join(' ')}, ${w.body.join(' ')}, ${w.kind}, ${w.custodian ?? ''})`;
        }),
      )}`.execute(ex);
  }
}

export async function insertPostgresDocs(ex: Executor, docs: SearchDocument[]): Promise<void> {
  for (let i = 0; i < docs.length; i += CHUNK) {
    const chunk = docs.slice(i, i + CHUNK);
    await sql`
      insert into search_docs (item_id, collection_id, name, path, meta_text, item_text, content_text, tsv)
      values ${sql.join(
        chunk.map(
          (d) =>
            sql`(${d.itemId}, ${d.collectionId}, ${d.original.name}, ${d.original.path}, ${d.original.meta}, ${d.original.itemText}, ${d.original.contentText}, ${toTsvector(d)}::tsvector)`,
        ),
      )}`.execute(ex);
  }
}
