import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../app.ts';
import type { AppContext } from '../context.ts';
import { sha256Hex } from '../domain/seal.ts';
import { storable } from '../domain/text.ts';
import type { AuditDetail, AuditEntry } from '../store/audit.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The audit action of this route (`collection.delete`). POST, PUT, PATCH and DELETE routes are audited even
     * without it (as `<METHOD> <url>`); `false` opts a route out (search reads). `'token'` is the token endpoint.
     */
    audit?: string | false;
  }
  interface FastifyRequest {
    /** Set by handlers whose caller is not a bearer token (OAuth callbacks) or whose target is not in the URL. */
    auditInfo: Partial<Pick<AuditEntry, 'accountId' | 'clientId' | 'targetId' | 'detail' | 'collectionId'>> | null;
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function actionOf(req: FastifyRequest): string | null {
  const cfg = req.routeOptions.config?.audit;
  const url = req.routeOptions.url;
  if (cfg === false || !url?.startsWith('/v1/')) return null;
  if (typeof cfg === 'string') return cfg;
  return WRITES.has(req.method) ? `${req.method} ${url}` : null;
}

function createdId(payload: unknown): string | null {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return null;
  try {
    const id = (JSON.parse(payload) as { onna_id?: unknown }).onna_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** Field names only, never values: a body may carry filters, codes or secrets. */
function bodyFields(req: FastifyRequest): AuditDetail | null {
  const body = req.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const fields = Object.keys(body).sort();
  return fields.length ? { fields } : null;
}

type TokenBody = { grant_type?: string; client_id?: string; refresh_token?: string };

/**
 * The token endpoint has no bearer caller: the client id (from HTTP Basic or the form, as the route read it) names the account. Unknown client ids are
 * not recorded (anyone can send any string). Tokens and secrets are never read into the entry; a presented
 * refresh token is only hashed to learn whether this request revoked its family (reuse detection).
 */
async function tokenEntry(ctx: AppContext, req: FastifyRequest, reply: FastifyReply): Promise<AuditEntry | null> {
  const body = (req.body ?? {}) as TokenBody;
  const clientId = req.auditInfo?.clientId ?? body.client_id;
  const client =
    typeof clientId === 'string' && clientId.length <= 128 && storable(clientId)
      ? await ctx.repos.accounts.findClient(clientId)
      : undefined;
  if (!client) return null;
  let action = body.grant_type === 'refresh_token' ? 'token.refresh' : 'token.issue';
  if (
    action === 'token.refresh' &&
    reply.statusCode === 400 &&
    typeof body.refresh_token === 'string' &&
    storable(body.refresh_token)
  ) {
    const row = await ctx.repos.tokens.find(sha256Hex(body.refresh_token));
    const startedAt = new Date(Date.now() - reply.elapsedTime - 1).toISOString();
    if (row && row.client_id === client.id && row.revoked_at && row.revoked_at >= startedAt) action = 'token.revoke';
  }
  return {
    accountId: client.account_id,
    clientId: client.id,
    action,
    targetId: client.id,
    outcome: reply.statusCode < 400 ? 'success' : 'failure',
    statusCode: reply.statusCode,
    correlationId: req.id,
    detail: {
      grant_type: typeof body.grant_type === 'string' ? body.grant_type.slice(0, 40) : null,
      ...(action === 'token.revoke' && { reason: 'refresh token reuse: token family revoked' }),
    },
  };
}

function callEntry(req: FastifyRequest, reply: FastifyReply, action: string, payload: unknown): AuditEntry | null {
  const info = req.auditInfo ?? {};
  const accountId = info.accountId ?? req.caller?.accountId ?? null;
  // No account: an unauthenticated request (its 401 is not an action of anyone we know).
  if (!accountId) return null;
  const params = req.params as { id?: unknown } | undefined;
  return {
    accountId,
    clientId: info.clientId ?? req.caller?.clientId ?? null,
    action,
    targetId:
      info.targetId ??
      (typeof params?.id === 'string' ? params.id : null) ??
      (reply.statusCode === 201 ? createdId(payload) : null),
    collectionId:
      info.collectionId ??
      (req.routeOptions.url?.startsWith('/v1/collections/:id') && typeof params?.id === 'string' ? params.id : null),
    outcome: reply.statusCode < 400 ? 'success' : 'failure',
    statusCode: reply.statusCode,
    correlationId: req.id,
    detail: info.detail ?? bodyFields(req),
  };
}

/**
 * Records every state-changing API call once, with its outcome. onSend rather than onResponse: the entry is
 * written before the client sees the response, so a client that reads the log next always finds its action.
 * A 429 was never processed and is not recorded. A failed write is logged; it does not fail the call, which
 * has already happened.
 */
export function installAuditHook(app: App, ctx: AppContext): void {
  app.decorateRequest('auditInfo', null);
  const record = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const action = actionOf(req);
    if (!action || reply.statusCode === 429) return payload;
    try {
      const entry = action === 'token' ? await tokenEntry(ctx, req, reply) : callEntry(req, reply, action, payload);
      if (entry) await ctx.repos.audit.record(entry);
    } catch (err) {
      req.log.error({ err, action }, 'audit entry could not be written');
    }
    return payload;
  };
  // Only on routes that can record (a read's answer does not wait for a hook that has nothing to do).
  app.addHook('onRoute', (route) => {
    const cfg = (route.config as { audit?: unknown } | undefined)?.audit;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (
      cfg === false ||
      !route.url.startsWith('/v1/') ||
      (typeof cfg !== 'string' && !methods.some((m) => WRITES.has(m)))
    )
      return;
    route.onSend = [...(route.onSend ? [route.onSend].flat() : []), record];
  });
}
