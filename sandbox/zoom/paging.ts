import { randomBytes } from 'node:crypto';
import type { ZoomFaults } from './faults.ts';

const TOKEN_TTL_MS = 15 * 60_000; // "This token's expiration period is 15 minutes."
const SWEEP_ABOVE = 5000;

interface Cursor {
  binding: string;
  offset: number;
  issuedAt: number;
}

export interface Page<T> {
  items: T[];
  /** "" on the last page, as Zoom does. */
  next_page_token: string;
  page_number: number;
}

/**
 * Server-side cursors behind opaque `next_page_token`s. A token is bound to the endpoint, path and filter
 * parameters it was issued for: Zoom requires the same query to be replayed with it.
 */
export class PageTokens {
  private readonly cursors = new Map<string, Cursor>();

  /** `emptyFirstPages` (variance profile): a first page with no items that still carries a next_page_token. */
  constructor(
    private readonly now: () => Date,
    private readonly faults: ZoomFaults,
    private readonly emptyFirstPages = false,
  ) {}

  /** undefined: the token is unknown, expired or replayed with other parameters (Zoom's code 300). */
  paginate<T>(items: readonly T[], size: number, token: string | undefined, binding: string): Page<T> | undefined {
    let offset = 0;
    if (!token && this.emptyFirstPages && items.length > 0)
      return { items: [], next_page_token: this.issue(binding, 0), page_number: 1 };
    if (token) {
      const cursor = this.cursors.get(token);
      if (!cursor || cursor.binding !== binding || this.faults.expirePageTokens) return undefined;
      if (cursor.issuedAt + TOKEN_TTL_MS <= this.now().getTime()) return undefined;
      offset = cursor.offset;
    }
    const end = offset + size;
    const next = end < items.length ? this.issue(binding, end) : '';
    return { items: items.slice(offset, end), next_page_token: next, page_number: Math.floor(offset / size) + 1 };
  }

  private issue(binding: string, offset: number): string {
    const nowMs = this.now().getTime();
    if (this.cursors.size > SWEEP_ABOVE) {
      for (const [key, c] of this.cursors) if (c.issuedAt + TOKEN_TTL_MS <= nowMs) this.cursors.delete(key);
    }
    const token = randomBytes(26).toString('base64url').slice(0, 35);
    this.cursors.set(token, { binding, offset, issuedAt: nowMs });
    return token;
  }
}

/** Zoom documents only the maximum; the sandbox clamps a larger page_size to it (and echoes the size it used). */
export function pageSize(raw: unknown, fallback: number, max: number): number | undefined {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) return undefined;
  return Math.min(n, max);
}
