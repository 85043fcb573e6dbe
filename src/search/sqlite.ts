import { sql, type RawBuilder } from 'kysely';
import type { SearchDocument } from './document.ts';
import { docFilterConditions, filterConditions } from './filters.ts';
import type { Query } from './query.ts';
import { PHRASE_BONUS, type Executor, type SearchIndex, type SearchResult } from './types.ts';

/**
 * SQLite FTS5. `search_fts` is contentless (the words live only in the index) and its rowid is
 * `search_docs.doc_id`; `search_docs` keeps the original text for highlights. Columns: name, path, meta, body,
 * kind, custodian. bm25 weights favour the name over metadata over path and body; kind and custodian only filter.
 */
const TEXT_COLUMNS: Record<'any' | 'name' | 'path', string> = {
  any: '{name path meta body}',
  name: '{name}',
  path: '{path}',
};
const BM25 = sql.raw('bm25(search_fts, 10.0, 2.0, 3.0, 1.0, 0.0, 0.0)');

/** Words are [letters digits] only (tokens.ts), so quoting them needs no escaping. */
function phrase(words: string[]): string {
  return `"${words.join(' ')}"`;
}

export function toFts5(q: Query): string {
  switch (q.type) {
    case 'text':
      return `${TEXT_COLUMNS[q.field]} : ${phrase(q.words)}${q.prefix ? ' *' : ''}`;
    case 'exact':
      return `{${q.field}} : ${phrase([q.token])}`;
    case 'or':
      return `(${q.children.map(toFts5).join(' OR ')})`;
    case 'and': {
      let expr = `(${q.include.map(toFts5).join(' AND ')})`;
      for (const ex of q.exclude) expr = `(${expr} NOT ${toFts5(ex)})`;
      return expr;
    }
  }
}

async function docIdOf(ex: Executor, itemId: string): Promise<number | undefined> {
  const { rows } = await sql<{ doc_id: number }>`select doc_id from search_docs where item_id = ${itemId}`.execute(ex);
  return rows[0]?.doc_id;
}

export function createSqliteSearchIndex(): SearchIndex {
  async function removeDocs(ex: Executor, where: RawBuilder<unknown>): Promise<void> {
    await sql`delete from search_fts where rowid in (select doc_id from search_docs where ${where})`.execute(ex);
    await sql`delete from search_docs where ${where}`.execute(ex);
  }

  return {
    async upsert(ex, doc: SearchDocument) {
      const o = doc.original;
      let docId = await docIdOf(ex, doc.itemId);
      if (docId === undefined) {
        const { rows } = await sql<{ doc_id: number }>`
          insert into search_docs (item_id, collection_id, name, path, meta_text, item_text, content_text)
          values (${doc.itemId}, ${doc.collectionId}, ${o.name}, ${o.path}, ${o.meta}, ${o.itemText}, ${o.contentText})
          returning doc_id`.execute(ex);
        docId = rows[0].doc_id;
      } else {
        await sql`delete from search_fts where rowid = ${docId}`.execute(ex);
        await sql`
          update search_docs set collection_id = ${doc.collectionId}, name = ${o.name}, path = ${o.path}, meta_text = ${o.meta},
            item_text = ${o.itemText}, content_text = ${o.contentText}
          where doc_id = ${docId}`.execute(ex);
      }
      const w = doc.words;
      await sql`
        insert into search_fts (rowid, name, path, meta, body, kind, custodian)
        values (${docId}, ${w.name.join(' ')}, ${w.path.join(' ')}, ${w.meta.join(' ')}, ${w.body.join(' ')}, ${w.kind}, ${w.custodian ?? ''})`.execute(
        ex,
      );
    },

    async removeItems(ex, itemIds) {
      for (let i = 0; i < itemIds.length; i += 500) {
        await removeDocs(ex, sql`item_id in (${sql.join(itemIds.slice(i, i + 500))})`);
      }
    },

    async removeCollection(ex, collectionId) {
      await removeDocs(ex, sql`collection_id = ${collectionId}`);
    },

    async search(ex, parsed, filters, page): Promise<SearchResult> {
      const match = toFts5(parsed.query);
      const docsOnly = docFilterConditions(filters);
      const where = sql.join([sql`search_fts match ${match}`, ...(docsOnly ?? filterConditions(filters))], sql` and `);
      const from = docsOnly
        ? sql`search_fts join search_docs d on d.doc_id = search_fts.rowid join collections c on c.id = d.collection_id`
        : sql`search_fts join search_docs d on d.doc_id = search_fts.rowid join items i on i.id = d.item_id join collections c on c.id = i.collection_id`;
      const bonus = parsed.rankPhrase.length
        ? sql`case when search_fts.rowid in (select rowid from search_fts where search_fts match ${`${TEXT_COLUMNS.any} : ${phrase(parsed.rankPhrase)}`}) then ${PHRASE_BONUS} else 0 end`
        : sql`0`;
      const { rows } = await sql<{
        item_id: string;
        score: number;
        name: string;
        path: string;
        meta_text: string;
        item_text: string;
        content_text: string;
      }>`
        select d.item_id, (-${BM25} + ${bonus}) as score, d.name, d.path, d.meta_text, d.item_text, d.content_text
        from ${from} where ${where}
        order by score desc, d.item_id asc
        limit ${page.size} offset ${page.offset}`.execute(ex);
      const count = await sql<{ n: number }>`select count(*) as n from ${from} where ${where}`.execute(ex);
      return {
        total: Number(count.rows[0]?.n ?? 0),
        hits: rows.map((r) => ({
          itemId: r.item_id,
          score: Number(r.score),
          texts: { name: r.name, path: r.path, meta: r.meta_text, itemText: r.item_text, contentText: r.content_text },
        })),
      };
    },
  };
}
