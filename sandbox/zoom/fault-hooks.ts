// Faults at rates (sandbox/fault-rates.ts) as Zoom's hosts show them: the API and `download_url` answer 500 with
// Zoom's JSON or 503 with the gateway's HTML page, and 429 with the X-RateLimit-* headers; the file host behind the
// 302 answers like an object store. Any of them may reset the connection.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Fault } from '../fault-rates.ts';
import { tooMany, zoomError, type SandboxContext } from './http.ts';

/** Body faults the file host's handler applies (the headers go out first). */
export const bodyFaults = new WeakMap<FastifyRequest, 'cut_body' | 'stalled_body'>();

/** onRequest of the main listener: faults for /v2/… and /rec/download/…; undefined when the request goes on. */
export function mainFault(ctx: SandboxContext, req: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const dice = ctx.faults.dice;
  const url = req.raw.url ?? '';
  if (!dice || !(url.startsWith('/v2/') || url.startsWith('/rec/download/'))) return undefined;
  const fault = dice.roll(false);
  if (fault === 'server_error') {
    reply.header('Retry-After', String(dice.retryAfterSeconds));
    if (dice.serverStatus() === 500) return zoomError(reply, 500, 500, 'Internal Error');
    return reply
      .code(503)
      .type('text/html')
      .send('<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
  }
  if (fault === 'too_many') {
    tooMany(ctx, reply, 'Medium', { limited: true, type: 'QPS', limit: ctx.limiter.qps('Medium') });
    return reply;
  }
  if (fault === 'reset') return reset(req, reply);
  return undefined;
}

/** onRequest of the file host. */
export function fileHostFault(ctx: SandboxContext, req: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const dice = ctx.faults.dice;
  if (!dice) return undefined;
  const fault: Fault | null = dice.roll(true);
  if (fault === 'server_error') {
    const status = dice.serverStatus();
    return reply
      .code(status)
      .header('Retry-After', String(dice.retryAfterSeconds))
      .type('application/xml')
      .send(
        `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${status === 500 ? 'InternalError' : 'SlowDown'}</Code><Message>Please retry</Message></Error>`,
      );
  }
  if (fault === 'too_many') {
    return reply
      .code(429)
      .header('Retry-After', '1')
      .type('application/xml')
      .send(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>TooManyRequests</Code><Message>Too many requests</Message></Error>',
      );
  }
  if (fault === 'reset') return reset(req, reply);
  if (fault === 'cut_body' || fault === 'stalled_body') bodyFaults.set(req, fault);
  return undefined;
}

function reset(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.hijack();
  req.raw.socket.destroy();
  return reply;
}
