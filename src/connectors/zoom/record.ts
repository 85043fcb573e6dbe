// Everything collected is content (issue 20): a record Zoom returned (a chat message; a meeting with its file list)
// is preserved as a blob of its own, secrets removed, as RFC 8785 (JCS) canonical JSON. The blob's SHA-256 is the
// item's version, so an edit or a deletion Zoom reports is a new version, and the same record is always the same
// bytes. Every record-backed item goes through recordEvent, whatever its kind.
import crypto from 'node:crypto';
import { canonicalJson } from '../../provider/fingerprint.ts';
import type { CollectEvent, ItemInput } from '../types.ts';
import { bufferSource } from './content.ts';

export const RECORD_MIME = 'application/json';

/**
 * Fields that hold a secret, whatever their value: the meeting's `password` (and its H.323/PSTN/encrypted
 * variants), `recording_play_passcode`, `download_access_token`, and any field named like a token.
 */
const SECRET_FIELD = /password|passcode|token|secret/i;
/** URL fields: download URLs carry access tokens in their query, share and play URLs a `pwd`. */
const URL_FIELD = /url$/i;

/** The record without its secrets: secret fields dropped, query strings and fragments cut off URL fields. */
export function redactRecord(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactRecord);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (SECRET_FIELD.test(k)) continue;
    out[k] = URL_FIELD.test(k) && typeof v === 'string' ? withoutQuery(v) : redactRecord(v);
  }
  return out;
}

function withoutQuery(url: string): string {
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
}

/**
 * The blob's bytes. A record parsed from JSON holds only strings, finite numbers, booleans, null, arrays and
 * objects; for those, keys sorted by UTF-16 code units and ECMAScript's number and string serialisation (what
 * canonicalJson does) is exactly RFC 8785.
 */
export function recordBytes(record: unknown): Buffer {
  return Buffer.from(canonicalJson(redactRecord(record)), 'utf8');
}

/** The item with the record as its content: size, MIME type and version (the blob's SHA-256) from the bytes. */
export function recordEvent(item: ItemInput, record: unknown): Extract<CollectEvent, { type: 'item' }> {
  const bytes = recordBytes(record);
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  return {
    type: 'item',
    item: { ...item, size: bytes.length, mimeType: RECORD_MIME, version: sha256 },
    content: bufferSource(bytes),
  };
}
