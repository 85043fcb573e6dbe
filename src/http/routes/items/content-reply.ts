import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.ts';
import { parseRange, type StoredContent } from '../../../read/queries.ts';
import { evaluatePreconditions, rangeApplies } from '../../preconditions.ts';

// OpenAPI 3.1 §4.8.14.5: raw bytes of any media type are described by an empty schema. The stored bytes keep the
// media type they were collected with, JSON included (a Zoom record), so a string schema would not describe them.
export const binary = (description: string) => ({ description, content: { '*/*': { schema: {} } } });

const header = (description: string, required = false) => ({
  description,
  ...(required && { required }),
  schema: { type: 'string' },
});
const VALIDATORS = {
  ETag: header('The SHA-256 of the content, quoted (a strong entity-tag).', true),
  'Last-Modified': header('When Custody stored these bytes.'),
};
const DOWNLOAD = {
  ...VALIDATORS,
  'Accept-Ranges': header('`bytes`', true),
  'Content-Disposition': header("`attachment; filename*=UTF-8''<name>`", true),
  'X-Content-Type-Options': header('`nosniff`', true),
};

/** The responses of a content download and, for the schema's `x-response-headers`, the headers each carries. */
export function contentResponses(description: string) {
  return {
    response: {
      200: binary(description),
      206: binary('The requested range of the content.'),
      // RFC 9110 §15.4.5: no content, and no Content-Type or Content-Length of its own
      304: Type.Null({ description: 'Not modified: the content is unchanged.' }),
    },
    headers: {
      200: DOWNLOAD,
      206: { ...DOWNLOAD, 'Content-Range': header('`bytes <first>-<last>/<size>`', true) },
      304: VALIDATORS,
      416: { 'Content-Range': header('`bytes */<size>`', true) },
    },
  };
}

/** The request headers both content downloads read: a range and its conditions (RFC 9110 §13.1, §14.2). */
export const ContentHeaders = Type.Object({
  range: Type.Optional(Type.String()),
  'if-match': Type.Optional(Type.String()),
  'if-none-match': Type.Optional(Type.String()),
  'if-modified-since': Type.Optional(Type.String()),
  'if-unmodified-since': Type.Optional(Type.String()),
  'if-range': Type.Optional(Type.String()),
});

export const CONDITIONAL_DESCRIPTION =
  '`ETag` is the SHA-256 (quoted), `Last-Modified` when Custody stored these bytes. `If-Match`, `If-Unmodified-Since`, `If-None-Match` and ' +
  '`If-Modified-Since` are evaluated in the order of RFC 9110 §13.2.2: 412 when `If-Match`/`If-Unmodified-Since` fails, 304 when ' +
  '`If-None-Match` (`*` included) or `If-Modified-Since` finds the content unchanged. A single `Range: bytes=…` answers 206 with ' +
  '`Content-Range` (an unsatisfiable one 416), unless `If-Range` names another version: then the whole content, 200.';

/**
 * The `content.download` audit entry of a download request: every answered request is one entry (a range request
 * included), on the item, with the collection and the range asked for, and (once the item is found) whose it is:
 * `custodian`, `custodian_name`, `custodian_email` as collected. The outcome and status come from the reply.
 */
export function downloadAudit(collectionId: string, itemId: string, range: string | undefined, version?: number) {
  return {
    targetId: itemId,
    detail: {
      collection_id: collectionId,
      range: range ? range.slice(0, 100) : null,
      ...(version !== undefined && { version_number: version }),
    },
  };
}

/** RFC 5987 ext-value: encodeURIComponent leaves ' ( ) * unescaped, which attr-char does not allow. */
const rfc5987 = (name: string) =>
  encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Stored bytes as a download: preconditions first, then 304, the whole content, or 206 with Content-Range for a range. */
export async function sendContent(req: FastifyRequest, reply: FastifyReply, content: StoredContent) {
  const modified = new Date(content.collected_datetime);
  const validators = { etag: `"${content.sha256}"`, modified: Math.floor(modified.getTime() / 1000) };
  const precondition = evaluatePreconditions(req.headers, validators);
  if (precondition === 'failed')
    throw new AppError(412, 'The content does not meet If-Match or If-Unmodified-Since: it has changed.');
  reply.header('ETag', validators.etag);
  if (!Number.isNaN(validators.modified)) reply.header('Last-Modified', modified.toUTCString());
  // Sent without a payload: Fastify then writes neither a Content-Type nor a Content-Length (a serialized `null` had both).
  if (precondition === 'not-modified') return reply.code(304).send();

  const range = rangeApplies(req.headers, validators) ? parseRange(req.headers.range, content.size) : undefined;
  reply
    .header('Accept-Ranges', 'bytes')
    .header('Content-Type', content.mime_type ?? 'application/octet-stream')
    .header('Content-Disposition', `attachment; filename*=UTF-8''${rfc5987(content.name || 'content')}`)
    .header('X-Content-Type-Options', 'nosniff');
  if (range) {
    reply
      .code(206)
      .header('Content-Range', `bytes ${range.start}-${range.end}/${content.size}`)
      .header('Content-Length', range.end - range.start + 1);
  } else {
    reply.header('Content-Length', content.size);
  }
  return reply.send(await content.read(range));
}
