// Faults at rates (sandbox/fault-rates.ts) as Graph and SharePoint show them: 500 generalException, 503 with
// Retry-After and an empty body, 429 with a fractional Retry-After, and connections reset without an answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Fault } from '../fault-rates.ts';
import { sendGraphError } from './graph/http.ts';
import type { SandboxState } from './state.ts';
import { formatRetryAfter } from './throttle.ts';

/** A Graph 429's Retry-After: fractional, between 1 and 2 seconds (by the die). */
function throttleSeconds(state: SandboxState): number {
  return 1 + ((state.faults.dice?.rolled ?? 0) % 997) / 997;
}

/** onRequest of Graph (/v1.0/…); undefined when the request goes on. */
export function graphFault(
  state: SandboxState,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | undefined {
  const dice = state.faults.dice;
  if (!dice) return undefined;
  const fault = dice.roll(false);
  if (fault === 'server_error') {
    if (dice.serverStatus() === 500)
      return sendGraphError(
        state,
        request,
        reply.header('retry-after', String(dice.retryAfterSeconds)),
        500,
        'generalException',
        'General exception while processing.',
      );
    return reply.code(503).header('retry-after', String(dice.retryAfterSeconds)).send('');
  }
  if (fault === 'too_many') {
    reply.header('retry-after', formatRetryAfter(throttleSeconds(state)));
    return sendGraphError(state, request, reply, 429, 'TooManyRequests', 'Too many requests.');
  }
  if (fault === 'reset') {
    reply.hijack();
    request.raw.socket.destroy();
    return reply;
  }
  return undefined;
}

/**
 * The download host's fault for this request: answered here (true), or a body fault for the handler to apply
 * once the headers are out.
 */
export function downloadFault(
  state: SandboxState,
  req: IncomingMessage,
  res: ServerResponse,
): true | 'cut_body' | 'stalled_body' | undefined {
  const dice = state.faults.dice;
  if (!dice) return undefined;
  const fault: Fault | null = dice.roll(true);
  const json = (status: number, body: unknown, retryAfter: string) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'retry-after': retryAfter,
    });
    res.end(text);
    return true as const;
  };
  if (fault === 'server_error') {
    const status = dice.serverStatus();
    return json(
      status,
      { error: { code: status === 500 ? 'generalException' : 'serviceNotAvailable', message: 'Please retry.' } },
      String(dice.retryAfterSeconds),
    );
  }
  if (fault === 'too_many')
    return json(
      429,
      { error: { code: 'activityLimitReached', message: 'The request has been throttled' } },
      formatRetryAfter(throttleSeconds(state)),
    );
  if (fault === 'reset') {
    req.socket.destroy();
    return true;
  }
  return fault ?? undefined;
}
