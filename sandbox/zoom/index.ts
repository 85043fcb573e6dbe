import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildFileHost, contentOf, registerDownloadRoutes } from './downloads.ts';
import { createFaults, type ZoomFaults } from './faults.ts';
import { GrantStore } from './grants.ts';
import { zoomError, type SandboxContext } from './http.ts';
import { registerOAuthRoutes } from './oauth.ts';
import { PageTokens } from './paging.ts';
import { RateLimiter, type RateLimitOptions } from './rate-limits.ts';
import { registerChatRoutes } from './routes-chat.ts';
import { registerRecordingRoutes } from './routes-recordings.ts';
import { registerSummaryRoutes } from './routes-summaries.ts';
import { registerUserRoutes } from './routes-users.ts';
import { seedTenant } from './seed.ts';
import type { ZoomTenant, ZoomUser } from './tenant.ts';

export type { ZoomFaults } from './faults.ts';
export type { RateLimitOptions } from './rate-limits.ts';
export type * from './tenant.ts';
export { ZoomTenant } from './tenant.ts';

/** Every granular (admin) scope the sandbox's endpoints check; the default grant holds them all. */
export const ZOOM_SANDBOX_SCOPES = [
  'user:read:list_users:admin', 'user:read:user:admin',
  'cloud_recording:read:list_user_recordings:admin', 'cloud_recording:read:list_recording_files:admin',
  'meeting:read:list_summaries:admin', 'meeting:read:summary:admin',
  'team_chat:read:list_user_channels:admin', 'team_chat:read:list_user_sessions:admin', 'team_chat:read:list_user_messages:admin',
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
}

export interface SandboxRequest {
  listener: 'main' | 'files';
  method: string;
  /** Raw path and query as received. */
  path: string;
  /** The Authorization header, if any. */
  auth?: string;
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
  /** The exact bytes served for a recording file (any type), by the file's id in `tenant`. */
  contentOf(fileId: string): Buffer;
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
  });
  const faults = createFaults();
  const requests: SandboxRequest[] = [];
  let mainOrigin = '';
  let filesOrigin = '';
  const ctx: SandboxContext = {
    tenant,
    faults,
    now,
    grants: new GrantStore({
      clientId, clientSecret, now,
      accessTokenTtlSeconds: opts.accessTokenTtlSeconds ?? 3600,
      scopes: opts.scopes ?? ZOOM_SANDBOX_SCOPES,
      ownerId: () => tenant.owner.id,
    }),
    limiter: new RateLimiter(opts.rateLimits ?? {}, now),
    pages: new PageTokens(now, faults),
    mainOrigin: () => mainOrigin,
    filesOrigin: () => filesOrigin,
    signingKey: randomBytes(32),
  };

  const main = buildMain(ctx, opts, (r) => requests.push({ listener: 'main', method: r.method, path: r.url, auth: r.auth }));
  const files = buildFileHost(ctx, (r) => requests.push({ listener: 'files', method: r.method, path: r.url, auth: r.auth }));
  mainOrigin = await listen(main, opts.port ?? 0);
  try {
    filesOrigin = await listen(files, opts.downloadPort ?? 0);
  } catch (err) {
    await main.close();
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
    contentOf: (fileId) => contentOf(tenant, fileId),
    close: async () => {
      await Promise.all([main.close(), files.close()]);
    },
  };
}

function buildMain(
  ctx: SandboxContext, opts: ZoomSandboxOptions, log: (r: { method: string; url: string; auth?: string }) => void,
): FastifyInstance {
  const app = Fastify({ logger: false });
  app.register(formbody);
  app.addHook('onRequest', async (req, reply) => {
    log({ method: req.method, url: req.raw.url ?? '', auth: req.headers.authorization });
    if (req.raw.url?.startsWith('/v2/')) reply.header('x-zm-trackingid', `v=2.0;clid=sandbox;rid=${randomBytes(8).toString('hex')}`);
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
  registerDownloadRoutes(app, ctx);
  return app;
}

async function listen(app: FastifyInstance, port: number): Promise<string> {
  await app.listen({ host: '127.0.0.1', port });
  const address = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}
