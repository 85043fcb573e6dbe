// Frozen copy of the search indexing that migration 006 ran (src/search/ as of that migration). A migration
// must do the same thing forever, so it never calls live code; change src/search/ freely, never this file.
import crypto from 'node:crypto';
import { PostgresAdapter, sql, type Kysely } from 'kysely';

export interface FrozenItem {
  id: string;
  collection_id: string;
  kind: string;
  name: string;
  path: string;
  custodian: string | null;
  metadata: string | Record<string, unknown> | null;
  text: string | null;
}

const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;
const MAX_WORD_LENGTH = 64;
const LIMITS = { maxWords: 100_000, maxDistinct: 40_000, maxDistinctBytes: 400_000, maxOriginalChars: 2_000_000 };
const SECRET_KEY = /(pass(word|code)?|pwd|secret|token|signature|credential|(^|_)key$)/i;
const URL_VALUE = /^[a-z][a-z0-9+.-]*:\/\//i;
const META_LIMITS = { maxStrings: 2_000, maxDepth: 8, maxChars: 200_000 };

const fold = (text: string) => text.normalize('NFKD').replace(MARKS, '').toLowerCase();

function words(text: string, limit: number): string[] {
  const out: string[] = [];
  for (const m of fold(text).matchAll(WORD)) {
    if (m[0].length > MAX_WORD_LENGTH) continue;
    out.push(m[0]);
    if (out.length >= limit) break;
  }
  return out;
}

function metadataText(metadata: FrozenItem['metadata']): string {
  let value: unknown = metadata;
  if (typeof metadata === 'string') {
    try {
      value = JSON.parse(metadata);
    } catch {
      return '';
    }
  }
  const out: string[] = [];
  let chars = 0;
  const walk = (v: unknown, key: string, depth: number) => {
    if (out.length >= META_LIMITS.maxStrings || chars >= META_LIMITS.maxChars || depth > META_LIMITS.maxDepth) return;
    if (SECRET_KEY.test(key)) return;
    if (typeof v === 'string') {
      if (v && !URL_VALUE.test(v)) {
        out.push(v);
        chars += v.length;
      }
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, key, depth + 1);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, k, depth + 1);
    }
  };
  walk(value, '', 0);
  return out.join('\n').slice(0, META_LIMITS.maxChars);
}

function wordBudget(): (ws: string[]) => string[] {
  let total = 0;
  let distinctBytes = 0;
  const distinct = new Set<string>();
  return (ws) => {
    const out: string[] = [];
    for (const w of ws) {
      if (total >= LIMITS.maxWords) break;
      if (!distinct.has(w)) {
        const bytes = Buffer.byteLength(w);
        if (distinct.size >= LIMITS.maxDistinct || distinctBytes + bytes > LIMITS.maxDistinctBytes) break;
        distinct.add(w);
        distinctBytes += bytes;
      }
      out.push(w);
      total++;
    }
    return out;
  };
}

function buildDocument(item: FrozenItem, contentText: string | null) {
  const cap = (s: string | null) => (s ?? '').slice(0, LIMITS.maxOriginalChars);
  const original = {
    name: cap(item.name),
    path: cap(item.path),
    meta: metadataText(item.metadata),
    itemText: cap(item.text),
    contentText: cap(contentText),
  };
  const take = wordBudget();
  const custodian = item.custodian
    ? `c${crypto.createHash('sha256').update(item.custodian.trim().toLowerCase()).digest('hex').slice(0, 24)}`
    : null;
  return {
    original,
    words: {
      name: take(words(original.name, LIMITS.maxWords)),
      path: take(words(original.path, LIMITS.maxWords)),
      meta: take(words(original.meta, LIMITS.maxWords)),
      body: take(words(`${original.itemText}\n${original.contentText}`, LIMITS.maxWords)),
      kind: `k${fold(item.kind).replace(/[^a-z0-9]/g, '')}`,
      custodian,
    },
  };
}

type Doc = ReturnType<typeof buildDocument>;

function toTsvector(doc: Doc): string {
  const positions = new Map<string, string[]>();
  let pos = 0;
  const add = (ws: string[], weight: string) => {
    for (const w of ws) {
      pos = Math.min(pos + 1, 16_383);
      let list = positions.get(w);
      if (!list) positions.set(w, (list = []));
      if (list.length < 255) list.push(`${pos}${weight}`);
    }
    pos += 1;
  };
  const w = doc.words;
  add(w.name, 'A');
  add([w.kind], 'B');
  if (w.custodian) add([w.custodian], 'B');
  add(w.path, 'C');
  add(w.meta, 'D');
  add(w.body, 'D');
  return [...positions].map(([lexeme, ps]) => `'${lexeme}':${ps.join(',')}`).join(' ');
}

/** Rebuilds an already indexed item's words, keeping its indexed content text. */
export async function reindexItem(db: Kysely<any>, item: FrozenItem): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const { rows } = await sql<{ doc_id: number; content_text: string | null }>`
    select ${sql.raw(postgres ? '0' : 'doc_id')} as doc_id, content_text from search_docs where item_id = ${item.id}`.execute(
    db,
  );
  const existing = rows[0];
  if (!existing) return;
  const doc = buildDocument(item, existing.content_text ?? null);
  const o = doc.original;
  await sql`
    update search_docs set collection_id = ${item.collection_id}, name = ${o.name}, path = ${o.path}, meta_text = ${o.meta},
      item_text = ${o.itemText}, content_text = ${o.contentText}
    where item_id = ${item.id}`.execute(db);
  if (postgres) {
    await sql`update search_docs set tsv = ${toTsvector(doc)}::tsvector where item_id = ${item.id}`.execute(db);
    return;
  }
  const w = doc.words;
  await sql`delete from search_fts where rowid = ${existing.doc_id}`.execute(db);
  await sql`
    insert into search_fts (rowid, name, path, meta, body, kind, custodian)
    values (${existing.doc_id}, ${w.name.join(' ')}, ${w.path.join(' ')}, ${w.meta.join(' ')}, ${w.body.join(' ')}, ${w.kind}, ${w.custodian ?? ''})`.execute(
    db,
  );
}
