import type { FastifyInstance } from 'fastify';

/**
 * Inside an encapsulated plugin: every content type is read as raw bytes (signatures are computed over them,
 * and Graph's validation request is an empty text/plain body), up to the route's limit (BODY_LIMITS).
 */
export function rawBodies(scope: FastifyInstance<any, any, any, any, any>): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
}

export function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
