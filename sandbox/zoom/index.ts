import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildFileHost, contentOf, registerDownloadRoutes } from './downloads.ts';
import { mainFault } from './fault-hooks.ts';
import { createFaults, type ZoomFaults } from './faults.ts';
import { GrantStore } from './grants.ts';
import { zoomError, type SandboxContext } from './http.ts';
import { registerOAuthRoutes } from './oauth.ts';
import { PageTokens } from './paging.ts';
import { InFlight, RateLimiter, type RateLimitOptions } from './rate-limits.ts';
import { registerChatFileRoutes } from './chat-downloads.ts';
import { registerChatRoutes } from './routes-chat.ts';
import { registerReportRoutes } from './routes-reports.ts';
import { registerLegalHoldRoutes } from './routes-legal-hold.ts';
import { registerRecordingRoutes } from './routes-recordings.ts';
import { registerSummaryRoutes } from './routes-summaries.ts';
import { registerUserRoutes } from './routes-users.ts';
import { seedTenant } from './seed.ts';
import { registerWebhookControls } from './webhook-controls.ts';
import { createZoomWebhooks, type ZoomWebhooks } from './webhooks.ts';
import type { ZoomTenant, ZoomUser } from './tenant.ts';
import { ZoomVariance, type ZoomVarianceOptions, type ZoomVarianceReport } from './variance.ts';

export type { ZoomFaults } from './faults.ts';
export type { RateLimitOptions } from './rate-limits.ts';
export type { ZoomVarianceOptions, ZoomVarianceReport } from './variance.ts';
export type * from './tenant.ts';
export type { ZoomLegalHoldFile, ZoomLegalHoldMatter } from './seed-legal-hold.ts';
export { ZoomTenant } from './tenant.ts';

/** Every granular (admin) scope the sandbox's endpoints check; the default grant holds them all. */
export const ZOOM_SANDBOX_SCOPES = [
  'user:read:list_users:admin',
  'user:read:user:admin',
  'cloud_recording:read:list_user_recordings:admin',
  'cloud_recording:read:list_recording_files:admin',
  'meeting:read:list_summaries:admin',
  'meeting:read:summary:admin',
  'team_chat:read:list_user_channels:admin',
  'team_chat:read:list_user_sessions:admin',
  'team_chat:read:list_user_messages:admin',
];

/**
 * The chat reports' scopes (a `scopes_type=preservation` app, ../shared/reference/zoom-api.md §1.5): not in the
 * default grant; with them, GET /report/chat/sessions and …/{sessionId} answer instead of 4711.
 */
export const ZOOM_REPORT_SCOPES = ['report:read:list_chat_sessions:admin', 'report:read:chat_session:admin'];

/** The Team Chat legal-hold scopes (also `preservation`): matters, their files, the files' download. */
export const ZOOM_LEGAL_HOLD_SCOPES = [
  'team_chat:read:list_legal_hold_matters:admin',
  'team_chat:read:list_legal_hold_matter_files:admin',
  'team_chat:read:legal_hold_matter_file:admin',
];

export interface ZoomSandboxOptions {
  /** The OAuth app the sandbox accepts. */
  clientId?: string;
  clientSecret?: string;
  /** When set, only these redirect URIs are accepted (Zoom's allow-list); default: any http(s) URI. */
  redirectUris?: string[];
  /** Scopes granted to every token; default ZOOM_SANDBOX_SCOPES. */
  scopes?: string[];
  /** Main listener (OAuth + API + download_url); 0 = ephemeral (default). */
  port?: number;
  /** File host that download URLs redirect to; 0 = ephemeral (default). */
  downloadPort?: number;
  /** The variance profile's separate download_url host (with a `hostname`); 0 = ephemeral (default). */
  downloadUrlPort?: number;
  seed?: number;
  users?: number;
  meetingsPerUser?: number;
  /** Bytes of each MP4 file (M4A files are a quarter of it). */
  fileSize?: number;
  channels?: number;
  messagesPerChannel?: number;
  /** About this many one-to-one peers per user (pairs run round a ring of the non-pending users). */
  oneToOnePeersPerUser?: number;
  messagesPerChat?: number;
  accessTokenTtlSeconds?: number;
  /** The clock: seeded data is placed relative to it; token, code, page-token and URL expiry follow it. */
  now?: () => Date;
  rateLimits?: RateLimitOptions;
  /** Every API request (under /v2/) is answered this many milliseconds late: a provider far away (benchmarks). */
  latencyMs?: number;
  /** The file host answers every download this late (the bytes of a recording take their time too). */
  downloadLatencyMs?: number;
  /**
   * The host name the sandbox's URLs carry (it always listens on 127.0.0.1); default 127.0.0.1. With a DNS-style
   * name, clients must resolve it and its subdomains to 127.0.0.1 (see resolveSandboxHosts in testing.ts).
   */
  hostname?: string;
  /**
   * The variance profile (off by default): other 404 codes and bodies, meetings without summaries or transcripts
   * at random, UUIDs that need double encoding, optional fields missing and unknown ones added, empty first pages
   * with a next_page_token, a recording deleted between listing and download, a download that always fails, a
   * one-to-one conversation whose messages always fail, and (with a `hostname`) download URLs on a host under it.
   */
  variance?: ZoomVarianceOptions;
  /**
   * Team Chat as a real account holds it (issue 20): one-to-one conversations with contacts outside the account
   * (member id only), files attached to messages, and history older than the six months the API serves.
   * Default: on with the variance profile, off otherwise.
   */
  chatExtras?: boolean;
  /**
   * What users' recordings lists do not show (seed-evidence.ts): participant audio files, recordings in the trash,
   * AI summaries of meetings without a recording. Default: on with the variance profile, off otherwise.
   */
  evidence?: boolean;
}

export interface SandboxRequest {
  listener: 'main' | 'files' | 'downloads';
  method: string;
  /** Raw path and query as received. */
  path: string;
  /** The Authorization header, if any. */
  auth?: string;
  /** When it arrived (epoch milliseconds, the real clock): rates measured at the simulator. */
  at: number;
}

export interface ZoomSandbox {
  /** http://127.0.0.1:PORT: serves /oauth/authorize, /oauth/token and the /rec/download/… URLs. */
  oauthUrl: string;
  /** http://127.0.0.1:PORT/v2 */
  apiUrl: string;
  /** http://127.0.0.1:PORT2: the second listener that serves recording bytes after the 302. */
  downloadOrigin: string;
  clientId: string;
  clientSecret: string;
  tenant: ZoomTenant;
  faults: ZoomFaults;
  /** Revokes every grant issued so far: refresh → invalid_grant, API → 401 code 124. New authorizations still work. */
  revokeAll(): void;
  /** Deletes a user as an admin would: unlisted, 404 code 1001 on /users/{id}/…, still visible as a chat peer. */
  deleteUser(idOrEmail: string): ZoomUser | undefined;
  requests: SandboxRequest[];
  /** API requests answered 429 for a per-second limit (rateLimits) so far. */
  rateLimited(): number;
  /** API requests and downloads being answered now, and the most at once (OAuth requests are not counted). */
  inFlight: InFlight;
  /** What the variance profile broke (undefined without one): ground truth for tests. */
  variance?: ZoomVarianceReport;
  /** The exact bytes served for a recording file (any type), by the file's id in `tenant`. */
  contentOf(fileId: string): Buffer;
  /** Event delivery (sandbox/zoom/webhooks.ts): subscribe an endpoint, add recordings and chat messages, faults. */
  webhooks: ZoomWebhooks;
  close(): Promise<void>;
}

export async function startZoomSandbox(opts: ZoomSandboxOptions = {}): Promise<ZoomSandbox> {
  const now = opts.now ?? (() => new Date());
  const clientId = opts.clientId ?? 'sandbox-zoom-client';
  const clientSecret = opts.clientSecret ?? 'sandbox-zoom-secret';
  const tenant = seedTenant({
    seed: opts.seed ?? 1,
    users: opts.users ?? 6,
    meetingsPerUser: opts.meetingsPerUser ?? 4,
    fileSize: opts.fileSize ?? 2048,
    channels: opts.channels ?? 3,
    messagesPerChannel: opts.messagesPerChannel ?? 8,
    oneToOnePeersPerUser: opts.oneToOnePeersPerUser ?? 2,
    messagesPerChat: opts.messagesPerChat ?? 6,
    now: now(),
    variance: opts.variance !== undefined,
    chatExtras: opts.chatExtras ?? opts.variance !== undefined,
    evidence: opts.evidence ?? opts.variance !== undefined,
  });
  const variance = opts.variance ? new ZoomVariance(opts.variance, opts.seed ?? 1) : undefined;
  variance?.choose(tenant);
  const hostname = opts.hostname ?? '127.0.0.1';
  const faults = createFaults();
  const requests: SandboxRequest[] = [];
  const inFlight = new InFlight();
  let mainOrigin = '';
  let filesOrigin = '';
  let downloadUrlOrigin = '';
  const ctx: SandboxContext = {
    tenant,
    faults,
    now,
    grants: new GrantStore({
      clientId,
      clientSecret,
      now,
      accessTokenTtlSeconds: opts.accessTokenTtlSeconds ?? 3600,
      scopes: opts.scopes ?? ZOOM_SANDBOX_SCOPES,
      ownerId: () => tenant.owner.id,
    }),
    limiter: new RateLimiter(opts.rateLimits ?? {}, now),
    pages: new PageTokens(now, faults, variance !== undefined),
    mainOrigin: () => mainOrigin,
    filesOrigin: () => filesOrigin,
    downloadUrlOrigin: () => downloadUrlOrigin,
    signingKey: randomBytes(32),
    variance,
  };

  const webhooks = createZoomWebhooks(ctx, { clientId });
  const main = buildMain(
    ctx,
    opts,
    (r) => requests.push({ listener: 'main', method: r.method, path: r.url, auth: r.auth, at: Date.now() }),
    webhooks,
    inFlight,
  );
  const files = buildFileHost(ctx, (r) =>
    requests.push({ listener: 'files', method: r.method, path: r.url, auth: r.auth, at: Date.now() }),
  );
  // download_url lives on a host under the OAuth host's domain (us02web.zoom.us next to zoom.us) in the variance
  // profile when the sandbox has a name; otherwise on the main listener, as before.
  const separate =
    variance && hostname !== '127.0.0.1'
      ? buildDownloadHost(ctx, (r) =>
          requests.push({ listener: 'downloads', method: r.method, path: r.url, auth: r.auth, at: Date.now() }),
        )
      : undefined;
  for (const app of [files, separate]) if (app) trackInFlight(app, inFlight);
  const late = opts.downloadLatencyMs;
  if (late) files.addHook('onRequest', () => new Promise<void>((resolve) => setTimeout(resolve, late)));
  mainOrigin = named(await listen(main, opts.port ?? 0), hostname);
  downloadUrlOrigin = mainOrigin;
  try {
    filesOrigin = await listen(files, opts.downloadPort ?? 0);
    if (separate) downloadUrlOrigin = named(await listen(separate, opts.downloadUrlPort ?? 0), `us02web.${hostname}`);
  } catch (err) {
    await Promise.all([main.close(), files.close(), separate?.close()]);
    throw err;
  }

  return {
    oauthUrl: mainOrigin,
    apiUrl: `${mainOrigin}/v2`,
    downloadOrigin: filesOrigin,
    clientId,
    clientSecret,
    tenant,
    faults,
    revokeAll: () => ctx.grants.revokeAll(),
    deleteUser: (idOrEmail) => tenant.deleteUser(idOrEmail),
    requests,
    rateLimited: () => ctx.limiter.refused,
    inFlight,
    variance: variance?.report,
    contentOf: (fileId) => contentOf(tenant, fileId),
    webhooks,
    close: async () => {
      webhooks.close();
      await Promise.all([main.close(), files.close(), separate?.close()]);
    },
  };
}

function buildMain(
  ctx: SandboxContext,
  opts: ZoomSandboxOptions,
  log: (r: { method: string; url: string; auth?: string }) => void,
  webhooks: ZoomWebhooks,
  inFlight: InFlight,
): FastifyInstance {
  // closing drops connections a client abandoned mid-request (a stalled request its caller gave up on)
  const app = Fastify({ logger: false, forceCloseConnections: true });
  app.register(formbody);
  // First: a request is in flight from its arrival, the stated latency included.
  trackInFlight(app, inFlight);
  app.addHook('onRequest', async (req, reply) => {
    log({ method: req.method, url: req.raw.url ?? '', auth: req.headers.authorization });
    if (req.raw.url?.startsWith('/v2/'))
      reply.header('x-zm-trackingid', `v=2.0;clid=sandbox;rid=${randomBytes(8).toString('hex')}`);
    if (opts.latencyMs && req.raw.url?.startsWith('/v2/'))
      await new Promise((resolve) => setTimeout(resolve, opts.latencyMs));
    if (ctx.faults.stall && req.raw.url?.startsWith('/v2/')) {
      ctx.faults.stalled += 1;
      try {
        await ctx.faults.stall;
      } finally {
        ctx.faults.stalled -= 1;
      }
    }
    return mainFault(ctx, req, reply);
  });
  app.setNotFoundHandler((_req, reply) => zoomError(reply, 404, 404, 'Not found.'));
  app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    return zoomError(reply, status, status === 500 ? 500 : 300, status === 500 ? 'Internal Error' : err.message);
  });
  registerOAuthRoutes(app, ctx, { redirectUris: opts.redirectUris });
  registerUserRoutes(app, ctx);
  registerSummaryRoutes(app, ctx);
  registerRecordingRoutes(app, ctx);
  registerChatRoutes(app, ctx);
  registerReportRoutes(app, ctx);
  registerLegalHoldRoutes(app, ctx);
  registerDownloadRoutes(app, ctx);
  registerChatFileRoutes(app, ctx);
  registerWebhookControls(app, webhooks);
  return app;
}

/** The download_url host of the variance profile: only /rec/download/…, like Zoom's regional web hosts. */
function buildDownloadHost(
  ctx: SandboxContext,
  log: (r: { method: string; url: string; auth?: string }) => void,
): FastifyInstance {
  const app = Fastify({ logger: false });
  app.addHook('onRequest', async (req) =>
    log({ method: req.method, url: req.raw.url ?? '', auth: req.headers.authorization }),
  );
  app.setNotFoundHandler((_req, reply) => zoomError(reply, 404, 404, 'Not found.'));
  registerDownloadRoutes(app, ctx);
  return app;
}

function trackInFlight(app: FastifyInstance, inFlight: InFlight): void {
  const counted = new WeakSet<object>();
  app.addHook('onRequest', async (req) => {
    if (req.raw.url?.startsWith('/oauth')) return;
    counted.add(req);
    inFlight.enter();
  });
  const leave = async (req: object) => {
    if (counted.delete(req)) inFlight.leave();
  };
  app.addHook('onResponse', leave);
  app.addHook('onRequestAbort', leave);
}

function named(origin: string, hostname: string): string {
  const url = new URL(origin);
  return `http://${hostname}:${url.port}`;
}

async function listen(app: FastifyInstance, port: number): Promise<string> {
  await app.listen({ host: '127.0.0.1', port });
  const address = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}
