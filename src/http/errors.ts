import crypto from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, codeOf, titleOf } from '../domain/errors.ts';

const CORRELATION_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** A well-formed incoming X-Correlation-ID is kept; anything else gets a fresh one. */
export function correlationId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = req.headers['x-correlation-id'];
  return typeof incoming === 'string' && CORRELATION_ID.test(incoming) ? incoming : crypto.randomUUID();
}

export function errorBody(req: FastifyRequest, status: number, detail: string, docsUrl: string, pointer?: string) {
  return {
    code: codeOf(status),
    id: req.id,
    title: titleOf(status),
    detail,
    links: { about: docsUrl },
    source: pointer === undefined ? null : { pointer },
  };
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: AppError, docsUrl: string) {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.status).type('application/json; charset=utf-8').send(errorBody(req, err.status, err.detail, docsUrl, err.pointer));
}

/** `/body/name` from Fastify/TypeBox validation details. */
function pointerOf(err: FastifyError): string | undefined {
  const v = err.validation?.[0];
  if (!v) return undefined;
  const where = err.validationContext ?? 'body';
  const params = v.params as { missingProperty?: string; additionalProperty?: string; requiredProperties?: string[] } | undefined;
  const extra = params?.missingProperty ?? params?.additionalProperty ?? params?.requiredProperties?.[0];
  const base = v.instancePath ?? '';
  return `/${where}${base}${extra ? `/${extra}` : ''}`;
}

function validationDetail(err: FastifyError): string {
  const v = err.validation?.[0];
  if (!v) return err.message;
  const params = v.params as { additionalProperty?: string; allowedValues?: unknown[] } | undefined;
  if (params?.additionalProperty) return `unknown field "${params.additionalProperty}".`;
  const where = err.validationContext ?? 'body';
  const field = (v.instancePath || '').replace(/^\//, '') || (params as { missingProperty?: string })?.missingProperty || where;
  return `${where} ${field} ${v.message ?? 'is invalid'}.`;
}

/**
 * Requests Node's HTTP parser refuses (oversized headers, garbage) never reach Fastify: answer them on the raw
 * socket, still in the one error shape.
 */
export function clientErrorHandler(docsUrl: string) {
  return (err: NodeJS.ErrnoException, socket: import('node:net').Socket) => {
    // A response already under way on this connection (keep-alive, pipelining) must not get a second one written
    // into it: drop the connection instead, as the client cannot tell the two apart.
    const inFlight = (socket as { _httpMessage?: unknown })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight) return void socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const id = crypto.randomUUID();
    const detail = { 431: 'The request headers (or the URL) are too large.', 408: 'The request took too long to arrive.' }[status as 431 | 408];
    const body = JSON.stringify({
      code: codeOf(status),
      id,
      title: titleOf(status),
      detail: detail ?? 'The request is malformed.',
      links: { about: docsUrl },
      source: null,
    });
    socket.end(
      `HTTP/1.1 ${status} ${titleOf(status)}\r\nContent-Type: application/json; charset=utf-8\r\nX-Correlation-ID: ${id}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}

/** The one error handler: every non-2xx body has the same shape; 5xx details go to the log only. */
export function installErrorHandler(app: FastifyInstance<any, any, any, any, any>, docsUrl: string) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (req.routeOptions.config?.oauthErrors && (err.validation || (err.statusCode ?? 500) < 500)) {
      // The token endpoint speaks RFC 6749 §5.2 even when its body cannot be parsed.
      return reply.code(400).send({ error: 'invalid_request', error_description: 'The body must be form-encoded (application/x-www-form-urlencoded).' });
    }
    if (err instanceof AppError) return sendError(req, reply, err, docsUrl);
    if (err.validation) return sendError(req, reply, new AppError(400, validationDetail(err), pointerOf(err)), docsUrl);
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) {
      req.log.error({ err }, 'unhandled error');
      return sendError(req, reply, new AppError(500, 'An internal error occurred. Quote the id when contacting support.'), docsUrl);
    }
    // Fastify's own 4xx (bad JSON, wrong content type, body too large): keep the status, plain message.
    return sendError(req, reply, new AppError(status, err.message.replace(/^FST_\w+: /, '')), docsUrl);
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(req, reply, new AppError(404, `No route ${req.method} ${req.url.split('?')[0]}.`), docsUrl),
  );
}
