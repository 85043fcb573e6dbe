import { describe, expect, it } from 'vitest';
import { parseQuery, QueryError, type Query } from '../../src/search/query.ts';
import { toFts5 } from '../../src/search/sqlite.ts';
import { toTsquery } from '../../src/search/postgres.ts';
import { custodianToken, kindToken } from '../../src/search/tokens.ts';

const kinds = ['meeting', 'meeting_chat', 'transcript', 'file', 'chat_message'];
const parse = (q: string) => parseQuery(q, { kinds });
const text = (ws: string[], field: 'any' | 'name' | 'path' = 'any', prefix = false): Query => ({
  type: 'text',
  field,
  words: ws,
  prefix,
});

describe('search query language', () => {
  it('reads words, phrases and prefixes with implied AND', () => {
    expect(parse('Budget "Quarterly Review" budg*').query).toEqual({
      type: 'and',
      include: [text(['budget']), text(['quarterly', 'review']), text(['budg'], 'any', true)],
      exclude: [],
    });
  });

  it('folds case and accents, and splits punctuation into a phrase', () => {
    expect(parse('Café').query).toEqual(text(['cafe']));
    expect(parse('alice@example.com').query).toEqual(text(['alice', 'example', 'com']));
  });

  it('gives NOT precedence over AND over OR, and honours parentheses', () => {
    expect(parse('a b OR c').query).toEqual({
      type: 'or',
      children: [{ type: 'and', include: [text(['a']), text(['b'])], exclude: [] }, text(['c'])],
    });
    expect(parse('a AND (b OR c) NOT d').query).toEqual({
      type: 'and',
      include: [text(['a']), { type: 'or', children: [text(['b']), text(['c'])] }],
      exclude: [text(['d'])],
    });
    expect(parse('a and or').query).toEqual({
      type: 'and',
      include: [text(['a']), text(['and']), text(['or'])],
      exclude: [],
    });
  });

  it('reads field filters', () => {
    expect(parse('name:budget').query).toEqual(text(['budget'], 'name'));
    expect(parse('name:"budget plan"').query).toEqual(text(['budget', 'plan'], 'name'));
    expect(parse('path:(finance OR legal)').query).toEqual({
      type: 'or',
      children: [text(['finance'], 'path'), text(['legal'], 'path')],
    });
    expect(parse('kind:meeting_chat').query).toEqual({
      type: 'exact',
      field: 'kind',
      token: kindToken('meeting_chat'),
      value: 'meeting_chat',
    });
    expect(parse('custodian:Alice@Example.com').query).toEqual({
      type: 'exact',
      field: 'custodian',
      token: custodianToken('alice@example.com'),
      value: 'Alice@Example.com',
    });
  });

  it('asks for the unqualified words as a phrase for ranking, and highlights positive terms only', () => {
    const p = parse('quarterly budget review NOT draft name:plan');
    expect(p.rankPhrase).toEqual(['quarterly', 'budget', 'review']);
    expect(p.highlight.map((h) => h.words.join(' '))).toEqual(['quarterly', 'budget', 'review', 'plan']);
    expect(parse('budget').rankPhrase).toEqual([]);
  });

  it.each([
    ['', 'no searchable word'],
    ['"budget review', 'unterminated quoted phrase starting at position 1'],
    ['(budget', 'unbalanced "("'],
    ['budget)', 'unbalanced ")"'],
    ['budget AND', 'AND at position 8 has nothing after it'],
    ['OR budget', 'OR at position 1 has nothing before it'],
    ['NOT budget', 'NOT needs a positive term'],
    ['budget OR NOT draft', 'NOT needs a positive term'],
    ['b*', 'at least 2'],
    ['bu*dget', 'may only end a word'],
    ['foo:bar', 'unknown field "foo:"'],
    ['name: budget', 'name: at position 1 needs a value'],
    ['kind:webinar', 'kind:webinar is not a known kind'],
    ['custodian:(a OR b)', 'takes one value'],
    ['name:(kind:file)', 'inside another field'],
    ['()', 'empty parentheses'],
    ['"!!"', 'has no searchable word'],
  ])('rejects %j naming the problem', (q, message) => {
    expect(() => parse(q)).toThrow(QueryError);
    expect(() => parse(q)).toThrow(message);
  });

  it('compiles to FTS5 and tsquery with field restrictions', () => {
    const q = parse('"budget review" name:plan* kind:file NOT custodian:bob').query;
    expect(toFts5(q)).toBe(
      `(({name path meta body} : "budget review" AND {name} : "plan" * AND {kind} : "kfile") NOT {custodian} : "${custodianToken('bob')}")`,
    );
    expect(toTsquery(q)).toBe(
      `(('budget':ACD <-> 'review':ACD) & 'plan':*A & 'kfile':B & !'${custodianToken('bob')}':B)`,
    );
  });
});
