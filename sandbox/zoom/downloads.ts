import { createHmac, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { mediaBytes } from './content.ts';
import { writeFaultedBody } from '../fault-rates.ts';
import { bodyFaults, fileHostFault } from './fault-hooks.ts';
import { take } from './faults.ts';
import { zoomError, type Query, type SandboxContext } from './http.ts';
import type { ZoomRecordingFile, ZoomTenant } from './tenant.ts';

const SIGNED_URL_TTL_S = 10 * 60;
const CHUNK = 256 * 1024;

const FAILURE_PAGE =
  '<!DOCTYPE html><html><head><title>Error - Zoom</title></head><body>' +
  '<div class="error-message">Only the host can download this recording. Please sign in to your Zoom account.</div>' +
  '</body></html>';

/** The exact bytes of a recording file, from its id. */
export function contentOf(tenant: ZoomTenant, fileId: string): Buffer {
  const found = tenant.file(fileId);
  if (!found) throw new Error(`unknown recording file ${fileId}`);
  return bytesOf(tenant, found.file, 0, found.file.file_size);
}

function bytesOf(tenant: ZoomTenant, file: ZoomRecordingFile, start: number, end: number): Buffer {
  const text = tenant.textBodies.get(file.id);
  if (text) return text.subarray(start, end);
  return mediaBytes(file.file_type === 'M4A' ? 'M4A' : 'MP4', file.id, start, end);
}

/**
 * `download_url` on the main host: with a valid bearer (API access token or download_access_token) it answers
 * 302 to a pre-signed URL on the file host. Failures Zoom signals with 200 + an HTML page are reproduced:
 * no credentials at all, and the `htmlDownloadFailure` switch. A bad or expired bearer gets 401 code 124.
 */
export function registerDownloadRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get<{ Params: { key: string } }>('/rec/download/:key', async (req, reply) => {
    if (take(ctx.faults, 'htmlDownloadFailure')) return htmlFailure(reply);
    if ((req.query as Query).access_token !== undefined) return zoomError(reply, 401, 124, 'Invalid access token.');
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer) return htmlFailure(reply);
    const check = ctx.grants.checkDownload(bearer);
    if (!check.ok) return zoomError(reply, 401, 124, check.message);
    const file = ctx.tenant.fileByDownloadKey(req.params.key);
    if (ctx.variance && file && ctx.variance.failsDownload(file)) return htmlFailure(reply);
    if (ctx.variance && (!file || ctx.variance.vanishOnDownload(ctx.tenant, file)))
      return ctx.variance.notFound(reply, 'Recording file', req.params.key);
    const meeting = file && ctx.tenant.file(file.id)!.meeting;
    if (!file || !meeting || !ctx.tenant.findUser(meeting.host_id))
      return zoomError(reply, 404, 3301, 'There is no recording for this meeting.');
    const expires = Math.floor(ctx.now().getTime() / 1000) + SIGNED_URL_TTL_S;
    const name = encodeURIComponent(fileName(file));
    const location = `${ctx.filesOrigin()}/rec/${file.downloadKey}/${name}?Expires=${expires}&Signature=${sign(ctx, file.downloadKey, expires)}&Key-Pair-Id=SANDBOXKEY`;
    return reply.code(302).header('Location', location).send();
  });
}

function htmlFailure(reply: FastifyReply): FastifyReply {
  return reply.code(200).type('text/html;charset=utf-8').send(FAILURE_PAGE);
}

/**
 * The file host behind the 302 (a CDN in real life): authorises by URL signature only. A request that also
 * carries an Authorization header is refused, as pre-signed object stores do ("Only one auth mechanism
 * allowed"), so a client that forwards its Zoom bearer across origins fails loudly here.
 */
export function buildFileHost(
  ctx: SandboxContext,
  log: (req: { method: string; url: string; auth?: string }) => void,
): FastifyInstance {
  const host = Fastify({ logger: false, forceCloseConnections: true });
  // closing drops a stalled body's connection at once
  host.addHook('onRequest', async (req, reply) => {
    log({ method: req.method, url: req.raw.url ?? '', auth: req.headers.authorization });
    return fileHostFault(ctx, req, reply);
  });
  host.get<{ Params: { key: string; name: string } }>('/rec/:key/:name', async (req, reply) => {
    if (req.headers.authorization) return xmlError(reply, 400, 'InvalidArgument', 'Only one auth mechanism allowed');
    const q = req.query as Query;
    const expires = Number(q.Expires);
    if (!q.Signature || !Number.isInteger(expires) || !verify(ctx, req.params.key, expires, q.Signature)) {
      return xmlError(reply, 403, 'AccessDenied', 'Access denied');
    }
    if (expires * 1000 <= ctx.now().getTime()) return xmlError(reply, 403, 'AccessDenied', 'Request has expired');
    const file = ctx.tenant.fileByDownloadKey(req.params.key);
    if (!file) return xmlError(reply, 404, 'NoSuchKey', 'The specified key does not exist.');
    const size = file.file_size;
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') return reply.code(416).header('Content-Range', `bytes */${size}`).send();
    const [start, end] = range ?? [0, size];
    reply.header('Content-Type', file.contentType);
    reply.header('Content-Disposition', `attachment; filename="${fileName(file)}"`);
    reply.header('Accept-Ranges', 'bytes');
    reply.header('Content-Length', String(end - start));
    if (range) reply.code(206).header('Content-Range', `bytes ${start}-${end - 1}/${size}`);
    const bodyFault = take(ctx.faults, 'truncateDownloads') ? 'cut_body' : bodyFaults.get(req);
    if (bodyFault) {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(range ? 206 : 200, reply.getHeaders() as Record<string, string>);
      writeFaultedBody(res, bytesOf(ctx.tenant, file, start, end), bodyFault, ctx.faults.dice?.rates.stallMs ?? 0);
      return reply;
    }
    if (end - start <= CHUNK) return reply.send(bytesOf(ctx.tenant, file, start, end));
    return reply.send(Readable.from(chunks(ctx.tenant, file, start, end)));
  });
  return host;
}

function* chunks(tenant: ZoomTenant, file: ZoomRecordingFile, start: number, end: number): Generator<Buffer> {
  for (let at = start; at < end; at += CHUNK) yield bytesOf(tenant, file, at, Math.min(end, at + CHUNK));
}

/** A single `bytes=a-b`, `bytes=a-` or `bytes=-n` range → [start, endExclusive]; undefined when absent. */
function parseRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header ?? '');
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  const [start, end] =
    m[1] === ''
      ? [Math.max(0, size - Number(m[2])), size]
      : [Number(m[1]), m[2] === '' ? size : Math.min(size, Number(m[2]) + 1)];
  return start >= size || start >= end ? 'unsatisfiable' : [start, end];
}

function fileName(f: ZoomRecordingFile): string {
  const stamp = f.recording_start.replace(/[-:]/g, '').replace('T', '-').replace('Z', '');
  const suffix: Record<string, string> = {
    MP4: f.recording_type === 'gallery_view' ? '_gallery.mp4' : '.mp4',
    M4A: '.m4a',
    TRANSCRIPT: '.transcript.vtt',
    CHAT: 'newChat.txt',
    CC: '.cc.vtt',
    TIMELINE: '.timeline.json',
  };
  return `GMT${stamp}_Recording${suffix[f.file_type]}`;
}

function sign(ctx: SandboxContext, key: string, expires: number): string {
  return createHmac('sha256', ctx.signingKey).update(`${key}:${expires}`).digest('base64url');
}

function verify(ctx: SandboxContext, key: string, expires: number, signature: string): boolean {
  const expected = Buffer.from(sign(ctx, key, expires));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function xmlError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply
    .code(status)
    .type('application/xml')
    .send(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}
