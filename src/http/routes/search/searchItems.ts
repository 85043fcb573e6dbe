import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { MAX_SIZE, RESULT_WINDOW } from '../../../search/service.ts';
import { itemView } from '../../../read/views.ts';
import { errors } from '../../schemas.ts';
import { Item } from '../items/schemas.ts';

const WINDOW = RESULT_WINDOW.toLocaleString('en-US');

const DESCRIPTION = `
Full-text search over the caller's account: item names, paths, metadata (meeting topics, participants, sender and
recipient e-mails, channel names) and the text of the content: transcripts (WebVTT cue text), in-meeting chat
files, chat and channel messages, AI meeting notes, text-like files (txt, md, csv, tsv, json, html and xml with
tags stripped) and the text of docx and pdf files (up to 4 MiB read, 200 pdf pages; parsed off the main thread,
a broken document is still stored and found by name, path and metadata). Own limit: 300 requests/min per token.

**Query language**
- \`budget\`: a word. Case and accents are ignored; a word is a run of letters and digits, so \`alice@example.com\`
  or \`e-mail\` search as the phrase of their parts.
- \`"quarterly budget review"\`: an exact phrase (the words next to each other, in this order).
- \`budg*\`: a prefix (at least 2 letters or digits before the \`*\`).
- \`a AND b\` or \`a b\`: both. \`a OR b\`: either. \`a NOT b\` (also \`a AND NOT b\`): \`a\` without \`b\`; NOT must follow
  something it subtracts from. Operators are upper case (\`and\` is a word). Parentheses group:
  \`(budget OR forecast) NOT draft\`. Precedence: NOT, then AND, then OR.
- Field filters, written without a space after the colon: \`name:budget\`, \`name:"board minutes"\`, \`name:budg*\`,
  \`name:(a OR b)\` and \`path:finance\` match in the item's name or path only; \`kind:transcript\` matches items of a
  kind; \`custodian:alice@example.com\` matches the custodian's e-mail or provider id exactly (any case). Other \`word:\` prefixes are
  errors: quote text that contains a colon.

A malformed query answers 400 with \`source.pointer\` \`/body/query\` and a \`detail\` naming the problem and its position.

**Ranking** Items holding the query's words as one exact phrase come first, then by relevance (BM25 on SQLite,
\`ts_rank\` on PostgreSQL; scores compare only within one response); names weigh more than metadata and content.

**Filters** \`workspace_id\`, \`collection_ids\`, \`kinds\`, \`custodians\` (each a provider user id or an e-mail, exact, any case), \`date_from\`/\`date_to\`
(a date or an ISO date-time with a zone, inclusive, compared to the second with the item's source modified time,
or its created time when it has none). Items tombstoned by an \`auto\` sync are excluded unless \`include_deleted\`.

**Highlights** Up to three HTML-escaped snippets in which the matches are wrapped in \`<mark>\`…\`</mark>\`.

**Paging** \`size\` (default 20, max 100) and the previous response's \`cursor\`; a cursor only fits the query and
filters it came from. The first ${WINDOW} results can be paged.

**Totals and large result sets** Matches are counted up to ${WINDOW}. \`total_relation\` \`eq\`: \`total\` is every match,
and every match was ranked. \`total_relation\` \`gte\`: more than ${WINDOW} items match, \`total\` is ${WINDOW}, and the results
are the first ${WINDOW} matches in the index's order (broadly, the items indexed first), ranked among themselves; a
better match further on is not among them. Narrow the query (more words, a phrase, \`collection_ids\`, \`custodians\`,
\`kinds\`, a date range) until \`total_relation\` is \`eq\` to rank every match. This keeps a search's cost bounded by
${WINDOW} matches, not by the size of the collection (a word in half of a million items answers as fast as a rare one).
`;

const SearchBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 1000, examples: ['"quarterly budget" OR forecast* NOT name:draft'] }),
    workspace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    collection_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 })),
    kinds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 20 })),
    custodians: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 100 })),
    date_from: Type.Optional(
      Type.String({ maxLength: 40, description: 'Inclusive: 2024-05-01 or 2024-05-01T09:30:00Z.' }),
    ),
    date_to: Type.Optional(Type.String({ maxLength: 40, description: 'Inclusive: a date means the whole day.' })),
    include_deleted: Type.Optional(Type.Boolean({ default: false })),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SIZE, default: 20 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

const SearchResponse = Type.Object({
  results: Type.Array(
    Type.Object({
      item: Item,
      score: Type.Number(),
      highlights: Type.Array(Type.String(), { description: 'HTML-escaped snippets; matches wrapped in <mark>.' }),
    }),
  ),
  total: Type.Integer({
    description: `Every match when \`total_relation\` is \`eq\`; ${WINDOW} (more match) when \`gte\`.`,
  }),
  total_relation: Type.Union([Type.Literal('eq'), Type.Literal('gte')], {
    description: '`eq`: `total` counts every match. `gte`: more than `total` items match (see Totals above).',
  }),
  cursor: Type.Union([Type.String(), Type.Null()]),
});

export default function searchItems(app: App) {
  app.post(
    '/v1/search',
    {
      config: { rateLimit: 'search', audit: false },
      schema: {
        operationId: 'searchItems',
        tags: ['search'],
        summary: 'Search collected content',
        description: DESCRIPTION,
        body: SearchBody,
        response: { 200: SearchResponse, ...errors(400, 401, 429) },
      },
    },
    async (req) => {
      const found = await app.ctx.reads.items.search(req.caller.accountId, req.body);
      return {
        results: found.hits.map((h) => ({ item: itemView(h.item), score: h.score, highlights: h.highlights })),
        total: found.total,
        total_relation: found.totalRelation,
        cursor: found.cursor,
      };
    },
  );
}
