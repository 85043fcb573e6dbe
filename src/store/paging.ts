import { sql, type SelectQueryBuilder } from 'kysely';
import { invalidInput } from '../domain/errors.ts';
import { storable } from '../domain/text.ts';

/** Opaque keyset cursors over (created_at, id). */
export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): [string, string] | undefined {
  if (!cursor) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string' && storable(v)))
      return value as [string, string];
  } catch {
    // fall through
  }
  throw invalidInput('cursor is not a cursor this API returned.', 'cursor');
}

/** One page of a query over a table with created_at and id, oldest first; `cursor` is null on the last page. */
export async function keysetPage<R extends { created_at: string; id: string }>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table of any schema with created_at and id
  query: SelectQueryBuilder<any, any, R>,
  opts: { cursor?: string; limit: number },
): Promise<{ rows: R[]; cursor: string | null }> {
  const after = decodeCursor(opts.cursor);
  // Row-value comparison: SQLite and PostgreSQL both order (created_at, id) pairs lexicographically.
  const q = after ? query.where(sql<boolean>`(created_at, id) > (${after[0]}, ${after[1]})`) : query;
  const rows = await q
    .orderBy(sql`created_at`)
    .orderBy(sql`id`)
    .limit(opts.limit + 1)
    .execute();
  const page = rows.slice(0, opts.limit);
  const last = page[page.length - 1];
  return { rows: page, cursor: rows.length > opts.limit && last ? encodeCursor(last.created_at, last.id) : null };
}
