import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { SandboxKeys } from './crypto.ts';
import { startDownloadServer } from './download.ts';
import { registerDeltaRoutes } from './graph/delta.ts';
import { graphFault } from './fault-hooks.ts';
import { sendGraphError, stampGraphHeaders } from './graph/http.ts';
import { registerItemRoutes } from './graph/items.ts';
import {
  createGraphSubscriptions,
  notifyingMutations,
  registerSubscriptionRoutes,
  type GraphSubscriptions,
} from './graph/subscriptions.ts';
import { registerUserRoutes } from './graph/users.ts';
import { registerAuthorizeRoute } from './identity/authorize.ts';
import { registerConsentRoutes } from './identity/consent.ts';
import { otherTenantOf } from './identity/directory.ts';
import { sendAadErrorPage } from './identity/errors.ts';
import { registerMetadataRoutes } from './identity/metadata.ts';
import { registerTokenRoute } from './identity/token.ts';
import { createMutations } from './mutate.ts';
import type { MsMutations } from './mutate.ts';
import { SeededRandom } from './rng.ts';
import { buildTenant } from './seed.ts';
import { APP_ROLES, recordRequest, SUBSCRIPTION_ROLE } from './state.ts';
import type { SandboxState } from './state.ts';
import { ResourceUnitBudget } from './throttle.ts';
import type { MicrosoftSandboxOptions, MsFaults, MsItem, MsRequestRecord, MsTenant } from './types.ts';
import { MsVariance, type MsVarianceReport } from './variance.ts';

export type {
  MicrosoftSandboxOptions,
  MsDrive,
  MsFaults,
  MsIdentity,
  MsItem,
  MsRequestRecord,
  MsTenant,
  MsUser,
} from './types.ts';
export type { MsMutations } from './mutate.ts';
export type { MsVarianceOptions, MsVarianceReport } from './variance.ts';

export interface MicrosoftSandbox {
  /** Stands in for https://login.microsoftonline.com (MS_LOGIN_URL). */
  loginUrl: string;
  /** Stands in for https://graph.microsoft.com/v1.0 (MS_GRAPH_URL). */
  graphUrl: string;
  /** Second listener serving the pre-authenticated download URLs. */
  downloadOrigin: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Live model: reflects mutations; deleted items stay in drive.items with deleted: true. */
  tenant: MsTenant;
  faults: MsFaults;
  mutate: MsMutations;
  /** Graph change notifications (sandbox/microsoft/graph/subscriptions.ts): subscriptions, deliveries, faults. */
  subscriptions: GraphSubscriptions;
  requests: MsRequestRecord[];
  /** Resource units charged to admitted requests and requests refused 429 (resourceUnitsPerMinute), so far. */
  resourceUnits(): { charged: number; refused: number };
  /** What the variance profile broke (undefined without one): ground truth for tests. */
  variance?: MsVarianceReport;
  contentOf(userId: string, itemId: string): Buffer;
  /** Live items of a user's drive, parents before children (root first). */
  listItems(userId: string): MsItem[];
  /** '/Folder/Sub/file.txt' for an item, '/' for the root. */
  pathOf(userId: string, itemId: string): string;
  /** The path Custody stores for the item: its owner's e-mail (mail, else user principal name) then `pathOf`. */
  itemPathOf(userId: string, itemId: string): string;
  /** When true, both admin-consent endpoints answer with their documented error redirect. */
  denyConsent: boolean;
  /**
   * A second organisation with no data: its Global Administrator signs in when login_hint is `adminUpn`, and
   * can consent for it (`/{id}/v2.0/adminconsent`) and get app tokens for it, which Graph refuses.
   */
  readonly otherTenant: { id: string; domain: string; adminUpn: string; consentGranted: boolean };
  /** Whether id and access tokens carry `wids` (the app registration's groupMembershipClaims). Default true. */
  directoryRoleClaims: boolean;
  /**
   * The application permissions of the app registration, as app-only tokens' `roles` carry them (tokens issued
   * from then on). Default: Files.Read.All, User.Read.All and Files.ReadWrite.All (which drive subscriptions need).
   */
  appRoles: string[];
  /** Whether the demo tenant has granted admin consent to the app. */
  readonly consentGranted: boolean;
  grantConsent(): void;
  revokeConsent(): void;
  /** Every refresh token issued so far now fails with invalid_grant AADSTS50173. */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

function defaultFaults(): MsFaults {
  return {
    throttle429: 0,
    throttle503: 0,
    retryAfterSeconds: 2.128,
    serverErrors: 0,
    resetConnections: 0,
    corruptDownloads: 0,
    expireDownloadUrls: false,
    deltaTokenExpired: false,
    duplicateDeltaItems: false,
    emptyDeltaPages: false,
    ignoreRange: false,
    dice: null,
  };
}

function buildApp(state: SandboxState, subscriptions: GraphSubscriptions): FastifyInstance {
  const app = Fastify({ logger: false, genReqId: () => randomUUID(), routerOptions: { maxParamLength: 1000 } });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  const records = new WeakMap<FastifyRequest, MsRequestRecord>();
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0];
    const host = path === '/v1.0' || path.startsWith('/v1.0/') ? 'graph' : 'login';
    const scheme = request.headers.authorization?.split(' ')[0];
    const record: MsRequestRecord = {
      method: request.method,
      path,
      host,
      ...(scheme ? { auth: scheme } : {}),
      at: Date.now(),
    };
    records.set(request, record);
    recordRequest(state, record);
    if (host === 'graph') {
      stampGraphHeaders(request, reply);
      return graphFault(state, request, reply);
    }
  });
  app.addHook('onResponse', async (request, reply) => {
    const record = records.get(request);
    if (record) record.status = reply.statusCode;
  });
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0];
    if (path.startsWith('/v1.0/')) {
      const segment = path.split('/').filter(Boolean).pop() ?? '';
      return sendGraphError(
        state,
        request,
        reply,
        400,
        'BadRequest',
        `Resource not found for the segment '${segment}'.`,
      );
    }
    if (path.endsWith('/oauth2/v2.0/token')) {
      return sendAadErrorPage(
        state,
        reply,
        900561,
        `The endpoint only accepts POST requests. Received a ${request.method} request.`,
      );
    }
    return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('404 Not Found');
  });
  registerAuthorizeRoute(app, state);
  registerTokenRoute(app, state);
  registerConsentRoutes(app, state);
  registerMetadataRoutes(app, state);
  app.register(
    async (graph) => {
      registerUserRoutes(graph, state);
      registerItemRoutes(graph, state);
      registerDeltaRoutes(graph, state);
      registerSubscriptionRoutes(graph, state, subscriptions);
    },
    { prefix: '/v1.0' },
  );
  return app;
}

export async function startMicrosoftSandbox(opts: MicrosoftSandboxOptions = {}): Promise<MicrosoftSandbox> {
  const seed = opts.seed ?? 20240501;
  const users = opts.users ?? 6;
  const fileSize = opts.fileSize ?? 2048;
  const model = buildTenant({
    seed,
    users,
    usersWithoutDrive: Math.min(users, opts.usersWithoutDrive ?? (users >= 4 ? 2 : users >= 2 ? 1 : 0)),
    folderDepth: opts.folderDepth ?? 2,
    foldersPerLevel: opts.foldersPerLevel ?? 2,
    filesPerFolder: opts.filesPerFolder ?? 2,
    fileSize,
    extensions: opts.extensions,
  });
  const now = opts.now ?? (() => new Date());
  const state: SandboxState = {
    clientId: opts.clientId ?? 'sandbox-ms-client',
    clientSecret: opts.clientSecret ?? 'sandbox-ms-secret',
    redirectUris: opts.redirectUris,
    now,
    tokenLifetimeSeconds: opts.tokenLifetimeSeconds,
    downloadUrlLifetimeSeconds: opts.downloadUrlLifetimeSeconds ?? 600,
    deltaPageSize: opts.deltaPageSize ?? 20,
    deltaAuthors: opts.deltaAuthors ?? 'vary',
    seed,
    model,
    keys: await SandboxKeys.create(),
    faults: defaultFaults(),
    consentedTenants: new Set(),
    denyConsent: false,
    otherTenant: otherTenantOf(seed),
    directoryRoleClaims: true,
    appRoles: [...APP_ROLES, SUBSCRIPTION_ROLE],
    authCodes: new Map(),
    refreshTokens: new Map(),
    deltaSessions: new Map(),
    requests: [],
    budget: new ResourceUnitBudget(opts.resourceUnitsPerMinute ?? 100_000),
    lifetimeRng: new SeededRandom(seed ^ 0x5eed),
    loginUrl: '',
    graphUrl: '',
    downloadOrigin: '',
  };
  if (opts.variance) {
    state.variance = new MsVariance(opts.variance, seed);
    state.variance.choose(model);
    state.faults.emptyDeltaPages = true;
  }
  const download = await startDownloadServer(state, opts.downloadPort ?? 0);
  state.downloadOrigin = download.origin;
  const subscriptions = createGraphSubscriptions(state);
  const app = buildApp(state, subscriptions);
  try {
    await app.listen({ port: opts.port ?? 0, host: '127.0.0.1' });
  } catch (error) {
    await download.close();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  state.loginUrl = `http://127.0.0.1:${port}`;
  state.graphUrl = `${state.loginUrl}/v1.0`;

  const driveOf = (userId: string) => {
    const drive = model.user(userId)?.drive;
    if (!drive) throw new Error(`sandbox: user ${userId} has no OneDrive`);
    return drive;
  };

  return {
    loginUrl: state.loginUrl,
    graphUrl: state.graphUrl,
    downloadOrigin: state.downloadOrigin,
    tenantId: model.tenant.id,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    tenant: model.tenant,
    faults: state.faults,
    mutate: notifyingMutations(createMutations(model, now, seed, fileSize), subscriptions),
    subscriptions,
    requests: state.requests,
    resourceUnits: () => ({ charged: state.budget.charged, refused: state.budget.refused }),
    variance: state.variance?.report,
    contentOf(userId, itemId) {
      const item = driveOf(userId).items.get(itemId);
      const content = item ? model.contents.get(item.id) : undefined;
      if (!content) throw new Error(`sandbox: no file ${itemId} for user ${userId}`);
      return content;
    },
    listItems: (userId) => model.preorder(driveOf(userId)),
    pathOf(userId, itemId) {
      const drive = driveOf(userId);
      const item = drive.items.get(itemId);
      if (!item) throw new Error(`sandbox: no item ${itemId} for user ${userId}`);
      return `/${model.pathNames(drive, item).join('/')}`;
    },
    itemPathOf(userId, itemId) {
      const user = model.user(userId);
      const drive = driveOf(userId);
      const item = drive.items.get(itemId);
      if (!item) throw new Error(`sandbox: no item ${itemId} for user ${userId}`);
      return `${user?.mail || user?.userPrincipalName || userId}/${model.pathNames(drive, item).join('/')}`;
    },
    get denyConsent() {
      return state.denyConsent;
    },
    set denyConsent(value: boolean) {
      state.denyConsent = value;
    },
    get consentGranted() {
      return state.consentedTenants.has(model.tenant.id);
    },
    otherTenant: {
      id: state.otherTenant.id,
      domain: state.otherTenant.domain,
      adminUpn: state.otherTenant.admin.userPrincipalName,
      get consentGranted() {
        return state.consentedTenants.has(state.otherTenant.id);
      },
    },
    get directoryRoleClaims() {
      return state.directoryRoleClaims;
    },
    set directoryRoleClaims(value: boolean) {
      state.directoryRoleClaims = value;
    },
    get appRoles() {
      return state.appRoles;
    },
    set appRoles(value: string[]) {
      state.appRoles = [...value];
    },
    grantConsent: () => void state.consentedTenants.add(model.tenant.id),
    revokeConsent: () => void state.consentedTenants.delete(model.tenant.id),
    revokeRefreshTokens() {
      for (const grant of state.refreshTokens.values()) grant.revoked = true;
    },
    async close() {
      subscriptions.close();
      await Promise.all([app.close(), download.close()]);
    },
  };
}
