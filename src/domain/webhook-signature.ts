import crypto from 'node:crypto';
import { safeEqual } from './seal.ts';

/** Zoom retries up to 85 minutes after the first attempt and may keep the original timestamp (reference §1.4). */
export const ZOOM_MAX_AGE_MS = 90 * 60_000;
/** A timestamp this far in the future is refused too (clock skew allowance). */
const MAX_FUTURE_MS = 5 * 60_000;

export function zoomHmacHex(secret: string, message: string | Buffer): string {
  return crypto.createHmac('sha256', secret).update(message).digest('hex');
}

/**
 * Zoom's v0 scheme: `x-zm-signature` = "v0=" + hex HMAC-SHA256(secret, "v0:{x-zm-request-timestamp}:{raw body}"),
 * over the raw bytes as received (re-serialised JSON would not match). Returns why it fails, or null.
 */
export function checkZoomSignature(input: {
  secret: string;
  timestamp: unknown;
  signature: unknown;
  rawBody: Buffer;
  nowMs: number;
}): string | null {
  const { timestamp, signature } = input;
  if (typeof timestamp !== 'string' || !/^\d{1,13}$/.test(timestamp))
    return 'x-zm-request-timestamp is missing or malformed';
  if (typeof signature !== 'string' || !/^v0=[0-9a-fA-F]{64}$/.test(signature))
    return 'x-zm-signature is missing or malformed';
  const ageMs = input.nowMs - Number(timestamp) * 1000;
  if (ageMs > ZOOM_MAX_AGE_MS) return 'x-zm-request-timestamp is older than 90 minutes';
  if (ageMs < -MAX_FUTURE_MS) return 'x-zm-request-timestamp is in the future';
  const message = Buffer.concat([Buffer.from(`v0:${timestamp}:`, 'utf8'), input.rawBody]);
  const expected = `v0=${zoomHmacHex(input.secret, message)}`;
  return safeEqual(expected, signature.toLowerCase()) ? null : 'x-zm-signature does not match';
}
