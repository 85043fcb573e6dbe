import type { FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A long-lived response (the event stream): exempt from any whole-request timeout. */
    stream?: boolean;
  }
}

/** One server-sent event: `id:`, `event:` and the JSON in `data:` (JSON has no raw newlines, so one data line). */
export function sseFrame(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A comment line: keeps proxies and load balancers from closing an idle stream. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';

/**
 * Takes the response over from Fastify and opens a text/event-stream, keeping the headers hooks already set
 * (correlation id, rate-limit headers). Returns a writer that reports false once the client has gone. A HEAD
 * gets the headers alone and an ended response: its writer is closed from the start.
 */
export function openEventStream(
  req: FastifyRequest,
  reply: FastifyReply,
): { write(chunk: string): boolean; closed(): boolean } {
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // No `connection: keep-alive` here: Node sends it itself unless the client asked to close, which it would override.
    // nginx and similar proxies buffer responses unless told not to.
    'x-accel-buffering': 'no',
  });
  if (req.method === 'HEAD') res.end();
  else res.flushHeaders();
  let gone = false;
  req.raw.on('close', () => (gone = true));
  res.on('close', () => (gone = true));
  return {
    write(chunk) {
      if (gone || res.writableEnded) return false;
      res.write(chunk);
      return true;
    },
    closed: () => gone || res.writableEnded,
  };
}
