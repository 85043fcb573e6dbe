import type { FastifyInstance } from 'fastify';

/**
 * Every route's body limit is explicit: the default below, or its own. A route declares its own with Fastify's
 * `bodyLimit` route option, or here when it takes bodies without a bearer token (anyone can send those, so they
 * get small limits). The README's "Request limits" table lists these.
 */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export const BODY_LIMITS: Record<string, number> = {
  // four short form fields
  'POST /v1/oauth/token': 8 * 1024,
  // provider event intake: one Zoom event; a batch of Graph change notifications (about 400 bytes each)
  'POST /v1/webhooks/zoom': 64 * 1024,
  'POST /v1/webhooks/microsoft': 256 * 1024,
};

export function installBodyLimits(app: FastifyInstance<any, any, any, any, any>): void {
  app.addHook('onRoute', (route) => {
    if (route.bodyLimit !== undefined) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const limits = methods.map((m) => BODY_LIMITS[`${m} ${route.url}`]).filter((l): l is number => l !== undefined);
    route.bodyLimit = limits.length ? Math.min(...limits) : DEFAULT_BODY_LIMIT;
  });
}
