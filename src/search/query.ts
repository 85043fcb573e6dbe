import { custodianToken, kindToken, words } from './tokens.ts';

/**
 * The search query language (documented for clients in the route's OpenAPI description):
 *   budget            a word (case and accents ignored)
 *   "budget review"   an exact phrase (words next to each other, in order)
 *   budg*             a prefix (at least 2 characters)
 *   a AND b, a b      both; a OR b either; a NOT b, a AND NOT b: a without b; parentheses group
 *   name:x  path:x    the word, phrase, prefix or (group) in the item's name or path only
 *   kind:transcript   items of that kind; custodian:alice@example.com  items of that custodian (exact, any case)
 * NOT binds tightest, then AND (written or implied), then OR.
 */
export type TextField = 'any' | 'name' | 'path';

export type Query =
  | { type: 'text'; field: TextField; words: string[]; prefix: boolean }
  | { type: 'exact'; field: 'kind' | 'custodian'; token: string; value: string }
  | { type: 'and'; include: Query[]; exclude: Query[] }
  | { type: 'or'; children: Query[] };

export interface ParsedQuery {
  query: Query;
  /** The positive unqualified words in order: documents holding them as one exact phrase rank first. */
  rankPhrase: string[];
  /** Words, phrases and prefixes to mark in highlights. */
  highlight: { words: string[]; prefix: boolean }[];
}

export class QueryError extends Error {
  override name = 'QueryError';
}

export const QUERY_LIMITS = { maxLeaves: 64, maxDepth: 16, maxPhraseWords: 32, minPrefix: 2, maxRankPhrase: 16 };
const FIELDS = ['name', 'path', 'kind', 'custodian'] as const;
type FieldName = (typeof FIELDS)[number];

type Lexeme =
  | { t: 'lparen'; pos: number }
  | { t: 'rparen'; pos: number }
  | { t: 'and'; pos: number }
  | { t: 'or'; pos: number }
  | { t: 'not'; pos: number }
  | { t: 'word'; text: string; pos: number }
  | { t: 'phrase'; text: string; pos: number }
  | { t: 'field'; name: FieldName; pos: number };

function lex(input: string): Lexeme[] {
  const out: Lexeme[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '(' || ch === ')') {
      out.push(ch === '(' ? { t: 'lparen', pos: i } : { t: 'rparen', pos: i });
      i++;
    } else if (ch === '"') {
      const end = input.indexOf('"', i + 1);
      if (end < 0) throw new QueryError(`unterminated quoted phrase starting at position ${i + 1}.`);
      out.push({ t: 'phrase', text: input.slice(i + 1, end), pos: i });
      i = end + 1;
    } else {
      let j = i;
      while (j < input.length && !/[\s()"]/.test(input[j])) j++;
      const text = input.slice(i, j);
      const field = /^([A-Za-z_]+):(.*)$/s.exec(text);
      if (text === 'AND' || text === 'OR' || text === 'NOT') {
        out.push({ t: text.toLowerCase() as 'and' | 'or' | 'not', pos: i });
      } else if (field) {
        const name = field[1].toLowerCase();
        if (!(FIELDS as readonly string[]).includes(name)) {
          throw new QueryError(
            `unknown field "${field[1]}:" at position ${i + 1}; the fields are ${FIELDS.map((f) => `${f}:`).join(', ')} (quote text that contains a colon).`,
          );
        }
        out.push({ t: 'field', name: name as FieldName, pos: i });
        if (field[2]) out.push({ t: 'word', text: field[2], pos: i + field[1].length + 1 });
      } else {
        out.push({ t: 'word', text, pos: i });
      }
      i = j;
    }
  }
  return out;
}

type Raw =
  | { type: 'leaf'; q: Query }
  | { type: 'and'; children: Raw[] }
  | { type: 'or'; children: Raw[] }
  | { type: 'not'; child: Raw };

interface ParseOptions {
  /** Valid values of `kind:`. */
  kinds: readonly string[];
}

class Parser {
  private i = 0;
  private leaves = 0;
  constructor(
    private lx: Lexeme[],
    private opts: ParseOptions,
  ) {}

  parse(): Raw | null {
    if (this.lx.length === 0) return null;
    const node = this.or(0, 'any');
    const extra = this.lx[this.i];
    if (extra)
      throw new QueryError(
        extra.t === 'rparen'
          ? `unbalanced ")" at position ${extra.pos + 1}.`
          : `unexpected input at position ${extra.pos + 1}.`,
      );
    return node;
  }

  private peek() {
    return this.lx[this.i];
  }

  private or(depth: number, field: TextField): Raw | null {
    if (depth > QUERY_LIMITS.maxDepth)
      throw new QueryError(`the query nests more than ${QUERY_LIMITS.maxDepth} levels.`);
    const parts: Raw[] = [];
    for (;;) {
      const part = this.and(depth, field);
      if (part) parts.push(part);
      const next = this.peek();
      if (next?.t !== 'or') break;
      if (!part) throw new QueryError(`OR at position ${next.pos + 1} has nothing before it.`);
      this.i++;
      if (!this.peek() || this.peek().t === 'rparen' || this.peek().t === 'or') {
        throw new QueryError(`OR at position ${next.pos + 1} has nothing after it.`);
      }
    }
    if (parts.length === 0) return null;
    return parts.length === 1 ? parts[0] : { type: 'or', children: parts };
  }

  private and(depth: number, field: TextField): Raw | null {
    const parts: Raw[] = [];
    for (;;) {
      const tok = this.peek();
      if (!tok || tok.t === 'or' || tok.t === 'rparen') break;
      if (tok.t === 'and') {
        if (parts.length === 0) throw new QueryError(`AND at position ${tok.pos + 1} has nothing before it.`);
        this.i++;
        const after = this.peek();
        if (!after || after.t === 'or' || after.t === 'rparen' || after.t === 'and') {
          throw new QueryError(`AND at position ${tok.pos + 1} has nothing after it.`);
        }
        continue;
      }
      const unary = this.unary(depth, field);
      if (unary) parts.push(unary);
    }
    if (parts.length === 0) return null;
    return parts.length === 1 ? parts[0] : { type: 'and', children: parts };
  }

  private unary(depth: number, field: TextField): Raw | null {
    const tok = this.peek();
    if (tok.t === 'not') {
      this.i++;
      const next = this.peek();
      if (!next || next.t === 'or' || next.t === 'and' || next.t === 'rparen')
        throw new QueryError(`NOT at position ${tok.pos + 1} has nothing after it.`);
      const child = this.unary(depth, field);
      if (!child) throw new QueryError(`NOT at position ${tok.pos + 1} has no searchable word after it.`);
      return { type: 'not', child };
    }
    return this.primary(depth, field);
  }

  private primary(depth: number, field: TextField): Raw | null {
    const tok = this.lx[this.i++];
    switch (tok.t) {
      case 'lparen': {
        const inner = this.or(depth + 1, field);
        const close = this.lx[this.i++];
        if (close?.t !== 'rparen') throw new QueryError(`unbalanced "(" at position ${tok.pos + 1}.`);
        if (!inner) throw new QueryError(`empty parentheses at position ${tok.pos + 1}.`);
        return inner;
      }
      case 'word':
      case 'phrase':
        return this.text(tok, field);
      case 'field':
        return this.field(tok, depth, field);
      default:
        throw new QueryError(`unexpected ${tok.t.toUpperCase()} at position ${tok.pos + 1}.`);
    }
  }

  private field(tok: Extract<Lexeme, { t: 'field' }>, depth: number, outer: TextField): Raw {
    if (outer !== 'any')
      throw new QueryError(`field ${tok.name}: at position ${tok.pos + 1} is inside another field's group.`);
    const value = this.peek();
    const missing = () =>
      new QueryError(`${tok.name}: at position ${tok.pos + 1} needs a value right after the colon.`);
    if (
      !value ||
      (value.t !== 'word' && value.t !== 'phrase' && value.t !== 'lparen') ||
      value.pos > tok.pos + tok.name.length + 1
    )
      throw missing();
    if (tok.name === 'kind' || tok.name === 'custodian') {
      if (value.t === 'lparen')
        throw new QueryError(`${tok.name}: takes one value, not a group (use OR between ${tok.name}: filters).`);
      if (value.t === 'word' && value.text.endsWith('*'))
        throw new QueryError(`${tok.name}: matches exactly; it takes no prefix "*".`);
      this.i++;
      return this.exact(tok.name, value.text, value.pos);
    }
    if (value.t === 'lparen') {
      const group = this.primary(depth, tok.name);
      if (!group) throw missing();
      return group;
    }
    this.i++;
    const leaf = this.text(value, tok.name);
    if (!leaf) throw new QueryError(`${tok.name}: at position ${tok.pos + 1} has no searchable word in its value.`);
    return leaf;
  }

  private exact(field: 'kind' | 'custodian', value: string, pos: number): Raw {
    const v = value.trim();
    if (!v) throw new QueryError(`${field}: at position ${pos + 1} needs a value.`);
    if (field === 'kind') {
      if (!this.opts.kinds.includes(v))
        throw new QueryError(`kind:${v} is not a known kind; kinds are ${this.opts.kinds.join(', ')}.`);
      return this.leaf({ type: 'exact', field, token: kindToken(v), value: v });
    }
    return this.leaf({ type: 'exact', field, token: custodianToken(v), value: v });
  }

  private text(tok: { t: 'word' | 'phrase'; text: string; pos: number }, field: TextField): Raw | null {
    let text = tok.text;
    let prefix = false;
    if (tok.t === 'word') {
      if (text.endsWith('*')) {
        text = text.slice(0, -1);
        prefix = true;
      }
      if (text.includes('*'))
        throw new QueryError(`"*" at position ${tok.pos + 1} may only end a word (prefix search, e.g. budg*).`);
    }
    const ws = words(text);
    if (prefix) {
      if (ws.length !== 1 || ws[0].length < QUERY_LIMITS.minPrefix) {
        throw new QueryError(
          `prefix "${tok.text}" at position ${tok.pos + 1} must be one word of at least ${QUERY_LIMITS.minPrefix} letters or digits before the "*".`,
        );
      }
    }
    if (ws.length === 0) {
      if (tok.t === 'phrase')
        throw new QueryError(`the quoted phrase at position ${tok.pos + 1} has no searchable word.`);
      return null;
    }
    if (ws.length > QUERY_LIMITS.maxPhraseWords)
      throw new QueryError(`the phrase at position ${tok.pos + 1} has more than ${QUERY_LIMITS.maxPhraseWords} words.`);
    return this.leaf({ type: 'text', field, words: ws, prefix });
  }

  private leaf(q: Query): Raw {
    if (++this.leaves > QUERY_LIMITS.maxLeaves)
      throw new QueryError(`the query has more than ${QUERY_LIMITS.maxLeaves} terms.`);
    return { type: 'leaf', q };
  }
}

/** NOT must subtract from something: `a NOT b` works, a bare `NOT b` or `a OR NOT b` does not. */
function normalize(raw: Raw): Query {
  switch (raw.type) {
    case 'leaf':
      return raw.q;
    case 'not':
      throw new QueryError('NOT needs a positive term to subtract from, e.g. budget NOT draft.');
    case 'or':
      return { type: 'or', children: raw.children.map(normalize) };
    case 'and': {
      const include: Query[] = [];
      const exclude: Query[] = [];
      for (const child of raw.children) {
        if (child.type === 'not') {
          if (child.child.type === 'not') include.push(normalize(child.child.child));
          else exclude.push(normalize(child.child));
        } else include.push(normalize(child));
      }
      if (include.length === 0)
        throw new QueryError('NOT needs a positive term to subtract from, e.g. budget NOT draft.');
      return include.length === 1 && exclude.length === 0 ? include[0] : { type: 'and', include, exclude };
    }
  }
}

function collect(q: Query, out: ParsedQuery): void {
  switch (q.type) {
    case 'text':
      out.highlight.push({ words: q.words, prefix: q.prefix });
      if (q.field === 'any' && !q.prefix) out.rankPhrase.push(...q.words);
      return;
    case 'exact':
      return;
    case 'and':
      q.include.forEach((c) => collect(c, out));
      return;
    case 'or':
      q.children.forEach((c) => collect(c, out));
      return;
  }
}

export function parseQuery(input: string, opts: ParseOptions): ParsedQuery {
  const raw = new Parser(lex(input), opts).parse();
  if (!raw) throw new QueryError('the query has no searchable word.');
  const query = normalize(raw);
  const out: ParsedQuery = { query, rankPhrase: [], highlight: [] };
  collect(query, out);
  out.rankPhrase = out.rankPhrase.length >= 2 ? out.rankPhrase.slice(0, QUERY_LIMITS.maxRankPhrase) : [];
  return out;
}
