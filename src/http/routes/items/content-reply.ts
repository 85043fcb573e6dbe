import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import type { ByteRange } from '../../../sync/queries.ts';

export const binary = (description: string) => ({ description, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } });

/** RFC 5987 ext-value: encodeURIComponent leaves ' ( ) * unescaped, which attr-char does not allow. */
const rfc5987 = (name: string) => encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Whether an If-None-Match header names this content (its ETag is the quoted SHA-256). */
export function matchesEtag(ifNoneMatch: string | undefined, sha256: string | null): boolean {
  if (!ifNoneMatch || !sha256) return false;
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .includes(`"${sha256}"`);
}

/** Stored bytes as a download: ETag = SHA-256, the recorded Content-Type, 206 with Content-Range for a range. */
export function sendContent(
  reply: FastifyReply,
  what: { sha256: string; name: string | null; mime_type: string | null },
  size: number,
  range: ByteRange | undefined,
  body: Readable,
) {
  reply
    .header('ETag', `"${what.sha256}"`)
    .header('Accept-Ranges', 'bytes')
    .header('Content-Type', what.mime_type ?? 'application/octet-stream')
    .header('Content-Disposition', `attachment; filename*=UTF-8''${rfc5987(what.name || 'content')}`)
    .header('X-Content-Type-Options', 'nosniff');
  if (range) {
    reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${size}`).header('Content-Length', range.end - range.start + 1);
  } else {
    reply.header('Content-Length', size);
  }
  return reply.send(body);
}
