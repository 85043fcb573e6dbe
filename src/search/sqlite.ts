import { sql, type RawBuilder } from 'kysely';
import type { SearchDocument } from './document.ts';
import { docFilterConditions, filterConditions, withFilterTerms } from './filters.ts';
import type { Query } from './query.ts';
import {
  PHRASE_BONUS,
  windowResult,
  type Executor,
  type HitRow,
  type SearchIndex,
  type SearchResult,
} from './types.ts';

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
      const docsOnly = docFilterConditions(filters);
      // kind and custodian carry bm25 weight 0: filter terms in the match leave the scores as they are
      const match = toFts5(docsOnly ? withFilterTerms(parsed.query, filters) : parsed.query);
      const where = sql.join([sql`search_fts match ${match}`, ...(docsOnly ?? filterConditions(filters))], sql` and `);
      const from = docsOnly
        ? sql`search_fts join search_docs d on d.doc_id = search_fts.rowid join collections c on c.id = d.collection_id`
        : sql`search_fts join search_docs d on d.doc_id = search_fts.rowid join items i on i.id = d.item_id join collections c on c.id = i.collection_id`;
      // The window's candidates and one more (which only says that more match): FTS5 yields matches in rowid order
      // (the order documents were first indexed) and stops at the limit, so a term in half a million items costs
      // what one in `window` items does. The phrase is looked for between the window's first and last rowid only.
      const bonus = parsed.rankPhrase.length
        ? sql`case when r.doc_id in (
            select rowid from search_fts where search_fts match ${`${TEXT_COLUMNS.any} : ${phrase(parsed.rankPhrase)}`}
              and rowid >= (select min(doc_id) from r) and rowid <= (select max(doc_id) from r)
          ) then ${PHRASE_BONUS} else 0 end`
        : sql`0`;
      const { rows } = await sql<HitRow>`
        with matches as materialized (
          select search_fts.rowid as doc_id, d.item_id, -${BM25} as score
          from ${from} where ${where}
          order by search_fts.rowid limit ${page.window + 1}
        ),
        r as (select * from matches order by doc_id limit ${page.window}),
        ranked as (
          select r.doc_id, r.item_id, r.score + ${bonus} as score from r
          order by score desc, r.item_id asc limit ${page.size} offset ${page.offset}
        )
        select ranked.item_id, ranked.score, (select count(*) from matches) as n,
          s.name, s.path, s.meta_text, s.item_text, s.content_text
        from ranked join search_docs s on s.doc_id = ranked.doc_id
        order by ranked.score desc, ranked.item_id asc`.execute(ex);
      // no row: no match, or a page past the last one (then the matches are counted on their own)
      const counted = async () =>
        (
          await sql<{ n: number }>`
            select count(*) as n from (select 1 from ${from} where ${where} limit ${page.window + 1})`.execute(ex)
        ).rows[0]?.n;
      const n = Number((rows.length > 0 || page.offset === 0 ? rows[0]?.n : await counted()) ?? 0);
      return windowResult(rows, n, page.window);
    },
  };
}
