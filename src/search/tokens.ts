import crypto from 'node:crypto';

/**
 * The one tokenizer. Text is normalized here before either backend sees it, so that SQLite FTS5 and
 * PostgreSQL agree on what a word is: runs of letters and digits, lowercased, accents removed. `alice@example.com`
 * is the three words `alice example com` on both (PostgreSQL's own parser would keep it as one e-mail token).
 */
const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;

/** Words longer than this are hashes, base64 or minified noise: not searchable, and they bloat a tsvector. */
export const MAX_WORD_LENGTH = 64;

export function fold(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

export function words(text: string, limit = Infinity): string[] {
  const out: string[] = [];
  for (const m of fold(text).matchAll(WORD)) {
    if (m[0].length > MAX_WORD_LENGTH) continue;
    out.push(m[0]);
    if (out.length >= limit) break;
  }
  return out;
}

/** Kinds are indexed as one opaque word each, so `kind:meeting` never matches `meeting_chat`. */
export function kindToken(kind: string): string {
  return `k${fold(kind).replace(/[^a-z0-9]/g, '')}`;
}

/** Custodians are provider ids or e-mails, matched exactly (case-insensitive): indexed as one hashed word. */
export function custodianToken(custodian: string): string {
  return `c${crypto.createHash('sha256').update(custodian.trim().toLowerCase()).digest('hex').slice(0, 24)}`;
}
