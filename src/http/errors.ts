import crypto from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../app.ts';
import { DomainError, codeOf, titleOf } from '../domain/errors.ts';
import { pointerOf, validationDetail } from './validation-detail.ts';
import { databaseOverloaded } from '../store/overload.ts';

const CORRELATION_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** A well-formed incoming X-Correlation-ID is kept; anything else gets a fresh one. */
export function correlationId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = req.headers['x-correlation-id'];
  return typeof incoming === 'string' && CORRELATION_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/** An answer of the HTTP layer itself (a status of its own, a pointer into the request); causes of the domain are DomainErrors. */
export class AppError extends Error {
  constructor(
    public status: number,
    public detail: string,
    public pointer?: string,
    public headers: Record<string, string> = {},
    /** A code of the catalogue for a distinct cause; the status's generic code otherwise. */
    public code?: string,
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, pointer?: string) => new AppError(400, detail, pointer);
export const unauthorized = (detail = 'A valid bearer access token is required.') => new AppError(401, detail);

const READS_QUERY = new Set(['GET', 'HEAD', 'DELETE']);

/**
 * The JSON pointer of a domain error's field: into the part of the request whose schema declares it, else the
 * query of a GET, HEAD or DELETE and the body of anything else.
 */
function pointerOfField(req: FastifyRequest, field: string): string {
  const name = field.split('/')[0];
  const schema = req.routeOptions.schema as
    Record<string, { properties?: Record<string, unknown> } | undefined> | undefined;
  const declared = (['querystring', 'body', 'params'] as const).find((part) => schema?.[part]?.properties?.[name]);
  return `/${declared ?? (READS_QUERY.has(req.method) ? 'querystring' : 'body')}/${field}`;
}

/** A domain error as the HTTP layer answers it: the catalogue's status and code, the field as a pointer. */
export function httpError(req: FastifyRequest, err: DomainError): AppError {
  const pointer = err.field === undefined ? undefined : pointerOfField(req, err.field);
  return new AppError(err.status, err.detail, pointer, err.headers, err.code);
}

export function errorBody(
  req: FastifyRequest,
  status: number,
  detail: string,
  docsUrl: string,
  pointer?: string,
  code?: string,
) {
  return {
    code: code ?? codeOf(status),
    id: req.id,
    title: titleOf(status),
    detail,
    links: { about: docsUrl },
    source: pointer === undefined ? null : { pointer },
  };
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: AppError, docsUrl: string) {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply
    .code(err.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(req, err.status, err.detail, docsUrl, err.pointer, err.code));
}

export function noRoute(req: FastifyRequest): AppError {
  return new AppError(404, `No route ${req.method} ${req.url.split('?')[0]}.`);
}

/** The one error handler: every non-2xx body has the same shape; 5xx details go to the log only. */
export function installErrorHandler(app: App, docsUrl: string) {
  app.setErrorHandler((thrown: FastifyError | DomainError, req, reply) => {
    // An AppError is not a FastifyError; the instanceof checks below tell them apart.
    const err = (thrown instanceof DomainError ? httpError(req, thrown) : thrown) as FastifyError;
    const status4xx = err instanceof AppError ? err.status < 500 : (err.statusCode ?? 500) < 500;
    if (req.routeOptions.config?.oauthErrors && (err.validation || status4xx) && err.statusCode !== 413) {
      // The token endpoint speaks RFC 6749 §5.2 even when its body cannot be parsed (a body too large gets the error shape).
      const description =
        err instanceof AppError && err.status !== 415
          ? err.detail
          : 'The body must be form-encoded (application/x-www-form-urlencoded).';
      return reply.code(400).send({ error: 'invalid_request', error_description: description });
    }
    if (err instanceof AppError) return sendError(req, reply, err, docsUrl);
    if (err.validation) return sendError(req, reply, new AppError(400, validationDetail(err), pointerOf(err)), docsUrl);
    if (databaseOverloaded(err)) {
      req.log.warn({ err }, 'database overloaded');
      const busy = 'The database is busy (too many connections). Try again in a moment.';
      return sendError(req, reply, new AppError(503, busy, undefined, { 'Retry-After': '1' }), docsUrl);
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) {
      req.log.error({ err }, 'unhandled error');
      return sendError(
        req,
        reply,
        new AppError(500, 'An internal error occurred. Quote the id when contacting support.'),
        docsUrl,
      );
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendError(req, reply, unsupportedMediaType(req), docsUrl);
    // Fastify's own 4xx (bad JSON, body too large): keep the status, plain message.
    return sendError(req, reply, new AppError(status, err.message.replace(/^FST_\w+: /, '')), docsUrl);
  });
  app.setNotFoundHandler((req, reply) => sendError(req, reply, noRoute(req), docsUrl));
}

/** A body of a media type the route does not read: name the one it does (only the token endpoint reads forms). */
export function unsupportedMediaType(req: FastifyRequest): AppError {
  const sent = (req.headers['content-type'] ?? '').split(';')[0].trim().slice(0, 80);
  const got = sent ? `, not ${sent}` : ', and this request names none';
  return new AppError(415, `This route reads JSON bodies: send Content-Type: application/json${got}.`);
}
