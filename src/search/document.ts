import { custodianToken, kindToken, words } from './tokens.ts';

/** What the index needs of an item row (src/store/items.ts ItemRow satisfies it). */
export interface IndexableItem {
  id: string;
  collection_id: string;
  kind: string;
  name: string;
  path: string;
  custodian: string | null;
  /** the custodian's e-mail as collected: `custodian:` in a query matches it as well as the id */
  custodian_email?: string | null;
  /** The provider's fields: JSON text (as stored) or an object. */
  metadata: string | Record<string, unknown> | null;
  /** ItemInput.text: the searchable text of items without content (chat messages, meeting notes). */
  text: string | null;
}

/** The original text kept for highlights, and the normalized words each backend indexes. */
export interface SearchDocument {
  itemId: string;
  collectionId: string;
  original: { name: string; path: string; meta: string; itemText: string; contentText: string };
  /** `custodian`: the custodian's tokens (its id's, and its e-mail's when known), space-separated */
  words: { name: string[]; path: string[]; meta: string[]; body: string[]; kind: string; custodian: string | null };
}

/**
 * Bounds shared by both backends so they index the same words. They also keep a PostgreSQL tsvector under its
 * 1 MB limit (distinct lexemes x (bytes + 4) + 2 bytes per position, at most 256 positions per lexeme).
 */
export const DOC_LIMITS = {
  maxWords: 100_000,
  maxDistinct: 40_000,
  maxDistinctBytes: 400_000,
  maxOriginalChars: 2_000_000,
};

// Provider fields that may carry secrets (Zoom meeting passcodes, download tokens) are never indexed; URLs carry
// passcodes too (`join_url?pwd=…`) and are not worth searching.
const SECRET_KEY = /(pass(word|code)?|pwd|secret|token|signature|credential|(^|_)key$)/i;
const URL_VALUE = /^[a-z][a-z0-9+.-]*:\/\//i;
const META_LIMITS = { maxStrings: 2_000, maxDepth: 8, maxChars: 200_000 };

/** Topics, participants, e-mails, channel names…: every string value of the metadata except secrets and URLs. */
export function metadataText(metadata: IndexableItem['metadata']): string {
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

/** Takes words in field order until a bound is reached; later fields get what is left. */
class WordBudget {
  private total = 0;
  private distinct = new Set<string>();
  private distinctBytes = 0;

  take(ws: string[]): string[] {
    const out: string[] = [];
    for (const w of ws) {
      if (this.total >= DOC_LIMITS.maxWords) break;
      if (!this.distinct.has(w)) {
        const bytes = Buffer.byteLength(w);
        if (this.distinct.size >= DOC_LIMITS.maxDistinct || this.distinctBytes + bytes > DOC_LIMITS.maxDistinctBytes)
          break;
        this.distinct.add(w);
        this.distinctBytes += bytes;
      }
      out.push(w);
      this.total++;
    }
    return out;
  }
}

export function buildDocument(item: IndexableItem, contentText: string | null): SearchDocument {
  const cap = (s: string | null) => (s ?? '').slice(0, DOC_LIMITS.maxOriginalChars);
  const original = {
    name: cap(item.name),
    path: cap(item.path),
    meta: metadataText(item.metadata),
    itemText: cap(item.text),
    contentText: cap(contentText),
  };
  const budget = new WordBudget();
  const name = budget.take(words(original.name, DOC_LIMITS.maxWords));
  const path = budget.take(words(original.path, DOC_LIMITS.maxWords));
  const meta = budget.take(words(original.meta, DOC_LIMITS.maxWords));
  const body = budget.take(words(`${original.itemText}\n${original.contentText}`, DOC_LIMITS.maxWords));
  return {
    itemId: item.id,
    collectionId: item.collection_id,
    original,
    words: {
      name,
      path,
      meta,
      body,
      kind: kindToken(item.kind),
      custodian: custodianTokens(item),
    },
  };
}

function custodianTokens(item: Pick<IndexableItem, 'custodian' | 'custodian_email'>): string | null {
  const tokens = [item.custodian, item.custodian_email].filter((c): c is string => !!c).map(custodianToken);
  return tokens.length > 0 ? [...new Set(tokens)].join(' ') : null;
}
