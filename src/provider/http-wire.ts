// What ProviderHttp reads and writes on the wire: bounded bodies, headers, network error codes, and the redaction
// that keeps credentials out of messages and logs.
import type { Readable } from 'node:stream';
import { ProviderError } from './provider-error.ts';
import { isRecord } from './quirks.ts';
import type { HeaderBag } from './retry.ts';

/** Reads at most `limit` bytes. Over the limit: an error if `strict`, otherwise the body is cut short. */
export async function readBody(body: Readable, limit: number, strict: boolean): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (size + chunk.length > limit) {
        if (strict) {
          throw new ProviderError(`response body larger than ${limit} bytes`, {
            code: 'invalid_response',
            retryable: false,
          });
        }
        chunks.push(chunk.subarray(0, limit - size));
        size = limit;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    // A broken error body still leaves the status to decide on.
    if (strict) throw error;
  } finally {
    if (!body.destroyed) body.destroy();
  }
  return Buffer.concat(chunks, size);
}

export function parseBody(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function networkCode(error: unknown): string | undefined {
  if (!isRecord(error) && !(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return error instanceof Error && /socket hang up/i.test(error.message) ? 'socket hang up' : undefined;
}

export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join('[redacted]');
  return out.replace(/(bearer|basic)\s+[A-Za-z0-9\-._~+/]+=*/gi, '$1 [redacted]');
}

export function redactDeep(value: unknown, secrets: string[]): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, secrets)]));
  return value;
}

export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '<invalid url>';
  }
}

export function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

export function headerString(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function flattenHeaders(headers: HeaderBag): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
