import crypto from 'node:crypto';
import { invalidInput } from '../domain/errors.ts';
import { highlights } from './highlight.ts';
import { searchIndexFor } from './index.ts';
import { parseQuery, QueryError } from './query.ts';
import type { Database } from '../store/db.ts';
import type { ItemRow } from '../store/items.ts';
import type { SearchFilters } from './types.ts';

export interface SearchRequest {
  query: string;
  workspace_id?: string;
  collection_ids?: string[];
  kinds?: string[];
  custodians?: string[];
  date_from?: string;
  date_to?: string;
  include_deleted?: boolean;
  size?: number;
  cursor?: string;
}

export interface ScoredHit {
  item: ItemRow;
  score: number;
  highlights: string[];
}

export const MAX_SIZE = 100;

/** The Item contract's kinds (issue: sync engine) plus whatever a registered connector adds. */
const CONTRACT_KINDS = [
  'meeting',
  'recording_video',
  'recording_audio',
  'transcript',
  'meeting_chat',
  'ai_meeting_notes',
  'chat_message',
  'channel_message',
  'participant_audio',
  'file',
  'folder',
];

export function knownKinds(connectors: {
  types(): string[];
  get(type: string): { kinds: readonly string[] } | undefined;
}): string[] {
  const kinds = new Set(CONTRACT_KINDS);
  for (const t of connectors.types()) for (const k of connectors.get(t)?.kinds ?? []) kinds.add(k);
  return [...kinds];
}
/**
 * The results a search can reach: it counts matches up to this bound and ranks the first this many in index order,
 * so that a term in half the collection costs what a term in 10,000 items does. Paging stops at the same bound.
 */
export const RESULT_WINDOW = 10_000;

/** A date (`2024-05-01`, the whole day) or a date-time with a zone; returns the UTC ISO bound. */
function dateBound(value: string | undefined, end: boolean, field: string): string | undefined {
  if (value === undefined) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : value;
  const ms =
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(date) && realDay(date)
      ? Date.parse(date)
      : NaN;
  if (Number.isNaN(ms))
    throw invalidInput(
      `${field} must be a date (2024-05-01) or a date-time with a time zone (2024-05-01T09:30:00Z).`,
      `${field}`,
    );
  return new Date(ms).toISOString();
}

/** `2024-02-30` is no day (Date.parse would read it as 1 March). */
function realDay(value: string): boolean {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** Cursors are an offset bound to the request they came from (size may change between pages, nothing else). */
function fingerprint(req: SearchRequest, accountId: string): string {
  const { cursor: _c, size: _s, ...rest } = req;
  return crypto
    .createHash('sha256')
    .update(JSON.stringify([accountId, rest]))
    .digest('base64url')
    .slice(0, 12);
}

function decodeCursor(cursor: string | undefined, fp: string): number {
  if (!cursor) return 0;
  const m = /^(\d{1,6})\.([\w-]{12})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || m[2] !== fp)
    throw invalidInput('cursor is not a cursor this API returned for this query and these filters.', 'cursor');
  return Number(m[1]);
}

const encodeCursor = (offset: number, fp: string) => Buffer.from(`${offset}.${fp}`).toString('base64url');

/** Parses, checks and runs a search in the caller's account; hits come with their item rows, best first. */
export async function searchItems(
  db: Database,
  accountId: string,
  req: SearchRequest,
  opts: { kinds: readonly string[]; window?: number },
): Promise<{ hits: ScoredHit[]; total: number; totalRelation: 'eq' | 'gte'; cursor: string | null }> {
  let parsed;
  try {
    parsed = parseQuery(req.query, { kinds: opts.kinds });
  } catch (err) {
    if (err instanceof QueryError) throw invalidInput(`query: ${err.message}`, 'query');
    throw err;
  }
  req.kinds?.forEach((k, i) => {
    if (!opts.kinds.includes(k))
      throw invalidInput(`kinds/${i}: "${k}" is not a kind; kinds are ${opts.kinds.join(', ')}.`, `kinds/${i}`);
  });
  const filters: SearchFilters = {
    accountId,
    workspaceId: req.workspace_id,
    collectionIds: req.collection_ids,
    kinds: req.kinds,
    custodians: req.custodians,
    dateFrom: dateBound(req.date_from, false, 'date_from'),
    dateTo: dateBound(req.date_to, true, 'date_to'),
    includeDeleted: req.include_deleted ?? false,
  };
  if (filters.dateFrom && filters.dateTo && filters.dateFrom > filters.dateTo)
    throw invalidInput('date_from is after date_to.', 'date_from');
  const size = Math.min(req.size ?? 20, MAX_SIZE);
  const fp = fingerprint(req, accountId);
  const window = opts.window ?? RESULT_WINDOW;
  const offset = decodeCursor(req.cursor, fp);
  if (offset >= window)
    throw invalidInput(`results beyond the first ${window} cannot be paged to; narrow the query.`, 'cursor');

  const result = await searchIndexFor(db).search(db, parsed, filters, { offset, size, window });
  const ids = result.hits.map((h) => h.itemId);
  const rows: ItemRow[] = ids.length
    ? await db.selectFrom('items').selectAll().where('id', 'in', ids).where('account_id', '=', accountId).execute()
    : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const hits = result.hits.flatMap((h) => {
    const item = byId.get(h.itemId);
    if (!item) return [];
    // The content first (the name is the hit's title already); metadata values one at a time, never run together.
    const content = [h.texts.itemText, h.texts.contentText].filter(Boolean).join('\n');
    const texts = [content, h.texts.name, ...h.texts.meta.split('\n'), h.texts.path];
    return [{ item, score: h.score, highlights: highlights(texts, parsed.highlight) }];
  });
  const next = offset + result.hits.length;
  return {
    hits,
    total: result.total,
    totalRelation: result.totalRelation,
    cursor: next < result.total && hits.length > 0 && next < window ? encodeCursor(next, fp) : null,
  };
}
