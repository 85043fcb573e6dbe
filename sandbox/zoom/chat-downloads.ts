// Files attached to Team Chat messages (Correction Z5): their `download_url` takes the OAuth bearer token like a
// recording's and answers the bytes (a Range request gets 206). No token: Zoom's HTML failure page.
import type { FastifyInstance } from 'fastify';
import { zoomError, type SandboxContext } from './http.ts';
import type { ZoomChatMessage } from './tenant.ts';

export function chatFileUrl(ctx: SandboxContext, downloadKey: string): string {
  return `${ctx.mainOrigin()}/file/download/${downloadKey}`;
}

/** A message's `files[]` as the messages list and the chat reports answer it; {} when it has none. */
export function chatFilesField(ctx: SandboxContext, m: ZoomChatMessage): { files?: Array<Record<string, unknown>> } {
  if (!m.files?.length) return {};
  return {
    files: m.files.map((f) => ({
      file_id: f.file_id,
      file_name: f.file_name,
      file_size: f.file_size,
      download_url: chatFileUrl(ctx, f.downloadKey),
    })),
  };
}

export function registerChatFileRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get<{ Params: { key: string } }>('/file/download/:key', async (req, reply) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer)
      return reply
        .code(200)
        .type('text/html;charset=utf-8')
        .send('<!DOCTYPE html><html><body>Please sign in to your Zoom account.</body></html>');
    const check = ctx.grants.checkDownload(bearer);
    if (!check.ok) return zoomError(reply, 401, 124, check.message);
    const file = ctx.tenant.chatFile(req.params.key);
    const body = file && ctx.tenant.textBodies.get(file.file_id);
    if (!file || !body) return zoomError(reply, 404, 4130, 'File does not exist.');
    reply.header('Content-Type', file.contentType).header('Accept-Ranges', 'bytes');
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    if (m && start < body.length) {
      return reply
        .code(206)
        .header('Content-Range', `bytes ${start}-${body.length - 1}/${body.length}`)
        .send(body.subarray(start));
    }
    return reply.send(body);
  });
}
