import type { FastifyInstance } from 'fastify';

/** Webhook bodies are small; anything larger is refused before it is read whole. */
export const WEBHOOK_BODY_LIMIT = 256 * 1024;

/**
 * Inside an encapsulated plugin: every content type is read as raw bytes (signatures are computed over them,
 * and Graph's validation request is an empty text/plain body), with the webhook body limit.
 */
export function rawBodies(scope: FastifyInstance<any, any, any, any, any>): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));
}

export function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
