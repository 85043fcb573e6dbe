import { sql } from 'kysely';
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
 * PostgreSQL full-text search: one `tsvector` per item in `search_docs.tsv` under a GIN index. The vector is
 * built here from the shared tokenizer's words (not by a text search configuration), so both databases index
 * the same words. Weights name the fields: A name, B kind and custodian, C path, D metadata and body.
 * Fields are one position apart so that a phrase never runs from one field into the next.
 * Known limit: PostgreSQL keeps positions up to 16,383, so a phrase further into a long text is not found.
 */
const WEIGHTS: Record<'any' | 'name' | 'path' | 'kind' | 'custodian', string> = {
  any: 'ACD',
  name: 'A',
  path: 'C',
  kind: 'B',
  custodian: 'B',
};
const MAX_POSITION = 16_383;
const MAX_POSITIONS_PER_LEXEME = 255;

/** `'word':1A,7A 'other':3D` — words are [letters digits] only (tokens.ts), so they need no escaping. */
export function toTsvector(doc: SearchDocument): string {
  const positions = new Map<string, string[]>();
  let pos = 0;
  const add = (words: string[], weight: string) => {
    for (const w of words) {
      pos = Math.min(pos + 1, MAX_POSITION);
      let list = positions.get(w);
      if (!list) positions.set(w, (list = []));
      if (list.length < MAX_POSITIONS_PER_LEXEME) list.push(`${pos}${weight}`);
    }
    pos += 1;
  };
  const w = doc.words;
  add(w.name, 'A');
  add([w.kind], 'B');
  if (w.custodian) add(w.custodian.split(' '), 'B');
  add(w.path, 'C');
  add(w.meta, 'D');
  add(w.body, 'D');
  return [...positions].map(([lexeme, ps]) => `'${lexeme}':${ps.join(',')}`).join(' ');
}

export function toTsquery(q: Query): string {
  switch (q.type) {
    case 'text': {
      const weight = WEIGHTS[q.field];
      const parts = q.words.map((word, i) => `'${word}':${q.prefix && i === q.words.length - 1 ? '*' : ''}${weight}`);
      return parts.length === 1 ? parts[0] : `(${parts.join(' <-> ')})`;
    }
    case 'exact':
      return `'${q.token}':${WEIGHTS[q.field]}`;
    case 'or':
      return `(${q.children.map(toTsquery).join(' | ')})`;
    case 'and':
      return `(${[...q.include.map(toTsquery), ...q.exclude.map((e) => `!${toTsquery(e)}`)].join(' & ')})`;
  }
}

/**
 * Runs `fn` where the window's candidates come in the same order each time, so that the pages of one query are
 * cut from the same candidates: no parallel workers (their rows interleave as they finish) and no synchronized
 * sequential scans (which start where another scan of the table happens to be).
 */
async function inOrderedScan<T>(ex: Executor, fn: (trx: Executor) => Promise<T>): Promise<T> {
  const run = async (trx: Executor) => {
    await sql`set local max_parallel_workers_per_gather = 0`.execute(trx);
    await sql`set local synchronize_seqscans = off`.execute(trx);
    return fn(trx);
  };
  return ex.isTransaction ? run(ex) : ex.transaction().execute(run);
}

export function createPostgresSearchIndex(): SearchIndex {
  return {
    async upsert(ex, doc) {
      const o = doc.original;
      await sql`
        insert into search_docs (item_id, collection_id, name, path, meta_text, item_text, content_text, tsv)
        values (${doc.itemId}, ${doc.collectionId}, ${o.name}, ${o.path}, ${o.meta}, ${o.itemText}, ${o.contentText}, ${toTsvector(doc)}::tsvector)
        on conflict (item_id) do update set collection_id = excluded.collection_id, name = excluded.name, path = excluded.path,
          meta_text = excluded.meta_text, item_text = excluded.item_text, content_text = excluded.content_text, tsv = excluded.tsv`.execute(
        ex,
      );
    },

    async removeItems(ex, itemIds) {
      for (let i = 0; i < itemIds.length; i += 500) {
        await sql`delete from search_docs where item_id in (${sql.join(itemIds.slice(i, i + 500))})`.execute(ex);
      }
    },

    async removeCollection(ex, collectionId) {
      await sql`delete from search_docs where collection_id = ${collectionId}`.execute(ex);
    },

    async search(ex, parsed, filters, page): Promise<SearchResult> {
      const query = sql`${toTsquery(parsed.query)}::tsquery`;
      const docsOnly = docFilterConditions(filters);
      // filter terms select, they do not rank: ts_rank is given the query alone
      const matched = docsOnly ? sql`${toTsquery(withFilterTerms(parsed.query, filters))}::tsquery` : query;
      const where = sql.join([sql`d.tsv @@ ${matched}`, ...(docsOnly ?? filterConditions(filters))], sql` and `);
      const from = docsOnly
        ? sql`search_docs d join collections c on c.id = d.collection_id`
        : sql`search_docs d join items i on i.id = d.item_id join collections c on c.id = i.collection_id`;
      const phraseQuery = parsed.rankPhrase.map((word) => `'${word}':${WEIGHTS.any}`).join(' <-> ');
      const bonus = parsed.rankPhrase.length
        ? sql`case when d.tsv @@ ${phraseQuery}::tsquery then ${PHRASE_BONUS} else 0 end`
        : sql`0`;
      // The window's candidates and one more (which only says that more match): the first matches as the table
      // yields them (no order, so PostgreSQL stops scanning at the limit); a term in half a million items costs
      // what one in `window` items does.
      return inOrderedScan(ex, async (trx) => {
        const { rows } = await sql<HitRow>`
          with matches as materialized (
            select d.item_id, (ts_rank(d.tsv, ${query}) + ${bonus})::float8 as score, row_number() over () as seq
            from ${from} where ${where} limit ${page.window + 1}
          ),
          ranked as (
            select item_id, score from matches where seq <= ${page.window}
            order by score desc, item_id asc limit ${page.size} offset ${page.offset}
          )
          select ranked.item_id, ranked.score, (select count(*)::int from matches) as n,
            s.name, s.path, s.meta_text, s.item_text, s.content_text
          from ranked join search_docs s on s.item_id = ranked.item_id
          order by ranked.score desc, ranked.item_id asc`.execute(trx);
        // no row: no match, or a page past the last one (then the matches are counted on their own)
        const counted = async () =>
          (
            await sql<{ n: number }>`
              select count(*)::int as n from (select 1 from ${from} where ${where} limit ${page.window + 1}) m`.execute(
              trx,
            )
          ).rows[0]?.n;
        const n = Number((rows.length > 0 || page.offset === 0 ? rows[0]?.n : await counted()) ?? 0);
        return windowResult(rows, n, page.window);
      });
    },
  };
}
