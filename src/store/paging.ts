import { badRequest } from '../domain/errors.ts';

/** Opaque keyset cursors over (created_at, id). */
export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): [string, string] | undefined {
  if (!cursor) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string')) return value as [string, string];
  } catch {
    // fall through
  }
  throw badRequest('cursor is not a cursor this API returned.', '/cursor');
}
