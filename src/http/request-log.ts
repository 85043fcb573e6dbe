import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { redactUrl } from '../log.ts';

/** Answers slower than this are logged at info whatever their status. */
const SLOW_MS = 1000;

/**
 * One log line per request, written when it is answered (Fastify's default writes two): at `info` for errors
 * (4xx, 5xx) and slow answers, at `debug` for the rest, so the default level keeps what an operator acts on and
 * a busy server does not spend its time logging successful reads. `LOG_LEVEL=debug` logs every request.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const log = reply.log as Logger;
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    if (error) return void log.error({ err: error, method: req.method, url: redactUrl(req.url), status }, 'request errored');
    const level = status >= 400 || ms >= SLOW_MS ? 'info' : 'debug';
    if (!log.isLevelEnabled(level)) return;
    log[level]({ method: req.method, url: redactUrl(req.url), route: req.routeOptions.url, status, ms: Math.round(ms * 10) / 10 }, 'request');
  }
}
