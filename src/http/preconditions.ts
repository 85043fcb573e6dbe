import type { IncomingHttpHeaders } from 'node:http';

/**
 * A representation's validators: its strong entity-tag (quoted) and when it last changed, in whole seconds
 * (NaN when unknown: every date comparison is then false, so date preconditions are ignored as RFC 9110 asks).
 */
export interface Validators {
  etag: string;
  modified: number;
}

// IMF-fixdate, then the obsolete RFC 850 and asctime forms recipients must still accept (RFC 9110 §5.6.7).
const HTTP_DATE =
  /^(?:\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT|\w{6,9}, \d{2}-\w{3}-\d{2} \d{2}:\d{2}:\d{2} GMT|\w{3} \w{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;
const ENTITY_TAG = /(?:W\/)?"[^"]*"/g;

/** An HTTP-date in whole seconds; undefined when the value is not one (the header is then ignored). */
function secondsOf(value: string | undefined): number | undefined {
  const date = value?.trim();
  if (!date || !HTTP_DATE.test(date)) return undefined;
  const ms = Date.parse(date.endsWith('GMT') ? date : `${date} GMT`);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

function tagsOf(value: string): string[] {
  return value.trim() === '*' ? ['*'] : (value.match(ENTITY_TAG) ?? []);
}

/** RFC 9110 §13.2.2, steps 1–4, for a GET or HEAD of a representation that exists. */
export function evaluatePreconditions(
  headers: IncomingHttpHeaders,
  v: Validators,
): 'proceed' | 'not-modified' | 'failed' {
  if (headers['if-match'] !== undefined) {
    // strong comparison: a weak tag never matches
    const tags = tagsOf(headers['if-match']);
    if (!tags.includes('*') && !tags.includes(v.etag)) return 'failed';
  } else {
    const since = secondsOf(headers['if-unmodified-since']);
    if (since !== undefined && v.modified > since) return 'failed';
  }
  if (headers['if-none-match'] !== undefined) {
    // weak comparison
    const tags = tagsOf(headers['if-none-match']).map((t) => t.replace(/^W\//, ''));
    if (tags.includes('*') || tags.includes(v.etag)) return 'not-modified';
  } else {
    const since = secondsOf(headers['if-modified-since']);
    if (since !== undefined && v.modified <= since) return 'not-modified';
  }
  return 'proceed';
}

/**
 * RFC 9110 §13.1.5: a Range applies without If-Range, or while If-Range names the current representation
 * (an entity-tag compared strongly, or exactly its Last-Modified date). Otherwise the whole of it is sent, so a
 * resumed download never splices two versions.
 */
export function rangeApplies(headers: IncomingHttpHeaders, v: Validators): boolean {
  const ifRange = headers['if-range']?.toString().trim();
  if (ifRange === undefined) return true;
  if (/^(?:W\/)?"/.test(ifRange)) return ifRange === v.etag;
  return secondsOf(ifRange) === v.modified;
}
