import type { App } from '../../../app.ts';

/**
 * Inside an encapsulated plugin: every content type is read as raw bytes (signatures are computed over them,
 * and Graph's validation request is an empty text/plain body), up to the route's limit (BODY_LIMITS).
 */
export function rawBodies(scope: App): void {
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
