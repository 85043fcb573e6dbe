import type { App } from '../app.ts';

/**
 * Every route's body limit is explicit: the default below, or its own. A route declares its own with Fastify's
 * `bodyLimit` route option, or here when it takes bodies without a bearer token (anyone can send those, so they
 * get small limits). The "Request limits" table of docs/api.md lists these.
 */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export const BODY_LIMITS: Record<string, number> = {
  // four short form fields
  'POST /v1/oauth/token': 8 * 1024,
  // One Zoom event, read whole before its signature can be checked. recording.completed lists every recording file
  // (reference §1.2/§1.6; about 550 bytes each with real-length play and download URLs), a set per recording
  // segment plus one per participant with separate audio files: 512 KiB holds over 900 of them.
  'POST /v1/webhooks/zoom': 512 * 1024,
  // A batch of Graph change notifications (about 400 bytes each; bursts of hundreds for one change, reference §2.5)
  'POST /v1/webhooks/microsoft': 256 * 1024,
  // A collection's whole filters: an edrive collection names each custodian (about 130 bytes each with a folder
  // selection), so a matter of tens of thousands of custodians needs more than the default. 8 MiB holds about 60,000.
  'PATCH /v1/collections/:id': 8 * 1024 * 1024,
};

export function installBodyLimits(app: App): void {
  app.addHook('onRoute', (route) => {
    if (route.bodyLimit !== undefined) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const limits = methods.map((m) => BODY_LIMITS[`${m} ${route.url}`]).filter((l): l is number => l !== undefined);
    route.bodyLimit = limits.length ? Math.min(...limits) : DEFAULT_BODY_LIMIT;
  });
}
