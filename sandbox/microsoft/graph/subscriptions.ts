// Graph change notifications for OneDrive for Business drives (reference provider-events.md §2, §4): subscriptions
// on a drive root only, changeType "updated", expiry at most 42,300 minutes ahead, the validation handshake
// (POST ?validationToken=, text/plain, 10 s) before 201, PATCH renewal (404 once expired), DELETE, GET; after a
// drive change, batched notifications without item data to every subscription of the drive. Faults: duplicates,
// delays (sandbox clock), out-of-order delivery, silent drops, lost subscriptions.
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MsMutations } from '../mutate.ts';
import { SUBSCRIPTION_ROLE, type SandboxState } from '../state.ts';
import { admitGraphRequest, claimsOf, sendGraphError, type GraphRouteConfig } from './http.ts';

export const MAX_DRIVE_SUBSCRIPTION_MINUTES = 42_300;

export interface GraphSubscription {
  id: string;
  resource: string;
  driveId: string;
  changeType: string;
  notificationUrl: string;
  lifecycleNotificationUrl?: string;
  clientState?: string;
  expirationDateTime: string;
  applicationId: string;
  creatorId: string;
}

export interface GraphNotificationFaults {
  /** Each notification is delivered this many extra times. */
  duplicates: number;
  /** Deliver this long after the change (sandbox clock). */
  delayMs: number;
  /** Hold notifications; `release()` delivers them newest first. */
  outOfOrder: boolean;
  /** Drop notifications silently (Graph's throttled endpoints, lost deliveries). */
  drop: boolean;
  /** Notifications carry no `id` (the field is optional). */
  omitIds: boolean;
  /** Maximum lifetime accepted, in minutes. */
  maxMinutes: number;
}

export interface GraphDelivery {
  url: string;
  status: number | null;
  body: string;
  at: string;
}

interface Queued {
  url: string;
  body: { value: Record<string, unknown>[] };
  dueAt: number;
  firstAt: number;
  attempt: number;
}

export interface GraphSubscriptions {
  /** Live subscriptions by id (expired ones are removed on access). */
  store: Map<string, GraphSubscription>;
  faults: GraphNotificationFaults;
  deliveries: GraphDelivery[];
  list(): GraphSubscription[];
  /** A drive changed: notify its subscriptions (called after every sandbox mutation). */
  changed(userId: string): Promise<void>;
  /** Graph deletes a subscription without telling anyone (expiry, admin action). */
  lose(subscriptionId: string): void;
  deliverDue(): Promise<number>;
  release(): Promise<number>;
  close(): void;
}

/** 4 hours of retries (reference §2.5; the older OneDrive page says 15 minutes). */
const RETRY_WINDOW_MS = 4 * 3600_000;

export function createGraphSubscriptions(state: SandboxState, opts: { pumpMs?: number } = {}): GraphSubscriptions {
  const subs = new Map<string, GraphSubscription>();
  const faults: GraphNotificationFaults = {
    duplicates: 0,
    delayMs: 0,
    outOfOrder: false,
    drop: false,
    omitIds: false,
    maxMinutes: MAX_DRIVE_SUBSCRIPTION_MINUTES,
  };
  const deliveries: GraphDelivery[] = [];
  let queue: Queued[] = [];
  let held: Queued[] = [];
  const nowMs = () => state.now().getTime();

  const expire = () => {
    for (const [id, s] of subs) if (Date.parse(s.expirationDateTime) <= nowMs()) subs.delete(id);
  };

  const send = async (q: Queued) => {
    const raw = JSON.stringify(q.body);
    const d: GraphDelivery = { url: q.url, status: null, body: raw, at: state.now().toISOString() };
    deliveries.push(d);
    try {
      const res = await fetch(q.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: raw,
        signal: AbortSignal.timeout(3000),
      });
      d.status = res.status;
      await res.arrayBuffer();
    } catch {
      d.status = null;
    }
    if (d.status !== null && d.status >= 200 && d.status < 300) return;
    const backoff = Math.min(60 * 60_000, 60_000 * 2 ** Math.min(10, Math.round((nowMs() - q.firstAt) / 60_000)));
    if (nowMs() + backoff - q.firstAt <= RETRY_WINDOW_MS)
      queue.push({ ...q, dueAt: nowMs() + backoff, attempt: q.attempt + 1 });
  };

  const deliverDue = async () => {
    const now = nowMs();
    const due = queue.filter((q) => q.dueAt <= now);
    queue = queue.filter((q) => q.dueAt > now);
    for (const q of due) {
      if (faults.outOfOrder && q.attempt === 0) held.push(q);
      else await send(q);
    }
    return due.length;
  };
  const pump = setInterval(() => void deliverDue(), opts.pumpMs ?? 200);
  pump.unref();

  return {
    store: subs,
    faults,
    deliveries,
    list: () => {
      expire();
      return [...subs.values()];
    },
    async changed(userId) {
      expire();
      const drive = state.model.user(userId)?.drive;
      if (!drive || faults.drop) return;
      const byUrl = new Map<string, Record<string, unknown>[]>();
      for (const s of subs.values()) {
        if (s.driveId !== drive.id) continue;
        const n: Record<string, unknown> = {
          subscriptionId: s.id,
          subscriptionExpirationDateTime: s.expirationDateTime,
          changeType: 'updated',
          resource: s.resource.replace(/^\//, ''),
          tenantId: state.model.tenant.id,
          resourceData: null,
          ...(s.clientState !== undefined && { clientState: s.clientState }),
          ...(!faults.omitIds && { id: randomUUID() }),
        };
        byUrl.set(s.notificationUrl, [...(byUrl.get(s.notificationUrl) ?? []), n]);
      }
      const now = nowMs();
      // One POST per notificationUrl may batch several subscriptions; duplicates go out as separate POSTs.
      for (const [url, value] of byUrl) {
        for (let copy = 0; copy <= faults.duplicates; copy++)
          queue.push({ url, body: { value }, dueAt: now + faults.delayMs, firstAt: now, attempt: 0 });
      }
      await deliverDue();
    },
    lose(id) {
      subs.delete(id);
    },
    deliverDue,
    async release() {
      const out = held.reverse();
      held = [];
      for (const q of out) await send(q);
      return out.length;
    },
    close() {
      clearInterval(pump);
    },
  };
}

const CONFIG: GraphRouteConfig = { ru: 1, permission: 'Files.Read.All' };

/** Validation handshake (reference §2.3): POST {url}?validationToken=…, text/plain, empty body, 10 s. */
async function validate(url: string): Promise<boolean> {
  const token = `Validation: ${randomBytes(12).toString('base64url')} & <ok>`;
  const sep = url.includes('?') ? '&' : '?';
  try {
    const res = await fetch(`${url}${sep}validationToken=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      signal: AbortSignal.timeout(10_000),
    });
    return res.status === 200 && (await res.text()) === token;
  } catch {
    return false;
  }
}

const ROOT_RESOURCE = /^\/?(?:users\/([^/]+)\/drive|drives\/([^/]+))\/root$/;

export function registerSubscriptionRoutes(app: FastifyInstance, state: SandboxState, subs: GraphSubscriptions): void {
  const store = subs.store;
  const admit = async (request: FastifyRequest, reply: FastifyReply) =>
    admitGraphRequest(state, request, reply, CONFIG) ? undefined : reply;
  const view = (s: GraphSubscription, withClientState = true) => {
    const { driveId: _d, ...rest } = s;
    if (!withClientState) delete rest.clientState;
    return {
      ...rest,
      latestSupportedTlsVersion: 'v1_2',
      includeResourceData: false,
      encryptionCertificate: null,
      encryptionCertificateId: null,
      notificationUrlAppId: null,
    };
  };

  app.post('/subscriptions', { preHandler: admit }, async (request, reply) => {
    if (!claimsOf(request).roles.includes(SUBSCRIPTION_ROLE)) {
      return sendGraphError(
        state,
        request,
        reply,
        403,
        'ExtensionError',
        'Operation: Create; Exception: [Status Code: Forbidden; Reason: Access denied]',
      );
    }
    const b = (request.body ?? {}) as Record<string, unknown>;
    const bad = (message: string, code = 'InvalidRequest') => sendGraphError(state, request, reply, 400, code, message);
    if (b.changeType !== 'updated') return bad('Subscription change type must be "updated" for drive root resources.');
    const m = typeof b.resource === 'string' ? ROOT_RESOURCE.exec(b.resource) : null;
    if (!m) return bad('Only the drive root can be subscribed to on OneDrive for Business.');
    const found = m[1]
      ? state.model.user(decodeURIComponent(m[1]))
      : state.model.tenant.users.find((u) => u.drive?.id === m[2]);
    if (!found?.drive)
      return sendGraphError(state, request, reply, 404, 'itemNotFound', 'The resource could not be found.');
    if (typeof b.notificationUrl !== 'string' || !/^https?:\/\//.test(b.notificationUrl))
      return bad('notificationUrl must be an http(s) URL.');
    if (b.clientState !== undefined && (typeof b.clientState !== 'string' || b.clientState.length > 128))
      return bad('clientState must be at most 128 characters.');
    const expires = typeof b.expirationDateTime === 'string' ? Date.parse(b.expirationDateTime) : Number.NaN;
    if (Number.isNaN(expires) || expires <= state.now().getTime())
      return bad('expirationDateTime must be in the future.');
    if (expires > state.now().getTime() + subs.faults.maxMinutes * 60_000) {
      return bad(
        `Subscription expiration can only be ${subs.faults.maxMinutes} minutes in the future.`,
        'ExtensionError',
      );
    }
    const lifecycle = typeof b.lifecycleNotificationUrl === 'string' ? b.lifecycleNotificationUrl : undefined;
    for (const url of [b.notificationUrl, ...(lifecycle ? [lifecycle] : [])]) {
      if (!(await validate(url)))
        return bad(
          'Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.',
          'ValidationError',
        );
    }
    const claims = claimsOf(request);
    const sub: GraphSubscription = {
      id: randomUUID(),
      resource: b.resource as string,
      driveId: found.drive.id,
      changeType: 'updated',
      notificationUrl: b.notificationUrl,
      ...(lifecycle && { lifecycleNotificationUrl: lifecycle }),
      ...(typeof b.clientState === 'string' && { clientState: b.clientState }),
      expirationDateTime: new Date(expires).toISOString(),
      applicationId: claims.appid,
      creatorId: claims.appid,
    };
    store.set(sub.id, sub);
    return reply
      .code(201)
      .send({ '@odata.context': `${state.graphUrl}/$metadata#subscriptions/$entity`, ...view(sub) });
  });

  app.patch('/subscriptions/:id', { preHandler: admit }, async (request, reply) => {
    subs.list();
    const sub = store.get((request.params as { id: string }).id);
    if (!sub) return sendGraphError(state, request, reply, 404, 'ResourceNotFound', 'The object was not found.');
    const b = (request.body ?? {}) as Record<string, unknown>;
    if (typeof b.expirationDateTime !== 'string' && typeof b.notificationUrl !== 'string') {
      return sendGraphError(
        state,
        request,
        reply,
        400,
        'InvalidRequest',
        "Subscription must contain either the 'expirationDateTime' or 'notificationUrl' property and its value.",
      );
    }
    if (typeof b.expirationDateTime === 'string') {
      const expires = Date.parse(b.expirationDateTime);
      if (Number.isNaN(expires) || expires <= state.now().getTime())
        return sendGraphError(
          state,
          request,
          reply,
          400,
          'InvalidRequest',
          'expirationDateTime must be in the future.',
        );
      if (expires > state.now().getTime() + subs.faults.maxMinutes * 60_000) {
        return sendGraphError(
          state,
          request,
          reply,
          400,
          'ExtensionError',
          `Subscription expiration can only be ${subs.faults.maxMinutes} minutes in the future.`,
        );
      }
      sub.expirationDateTime = new Date(expires).toISOString();
    }
    return reply.code(200).send(view(sub));
  });

  app.delete('/subscriptions/:id', { preHandler: admit }, async (request, reply) => {
    subs.list();
    const id = (request.params as { id: string }).id;
    if (!store.delete(id))
      return sendGraphError(state, request, reply, 404, 'ResourceNotFound', 'The object was not found.');
    return reply.code(204).send();
  });

  app.get('/subscriptions', { preHandler: admit }, async (_request, reply) => {
    return reply.send({
      '@odata.context': `${state.graphUrl}/$metadata#subscriptions`,
      value: subs.list().map((s) => view(s, false)),
    });
  });
}

/** Every sandbox mutation of a drive notifies that drive's subscriptions (delta already reflects it). */
export function notifyingMutations(inner: MsMutations, subs: GraphSubscriptions): MsMutations {
  const after = <T>(userId: string, result: T): T => {
    void subs.changed(userId);
    return result;
  };
  return {
    addFile: (userId, ...rest) => after(userId, inner.addFile(userId, ...rest)),
    addFolder: (userId, ...rest) => after(userId, inner.addFolder(userId, ...rest)),
    modifyFile: (userId, ...rest) => after(userId, inner.modifyFile(userId, ...rest)),
    deleteItem: (userId, ...rest) => after(userId, inner.deleteItem(userId, ...rest)),
    moveItem: (userId, ...rest) => after(userId, inner.moveItem(userId, ...rest)),
    renameItem: (userId, ...rest) => after(userId, inner.renameItem(userId, ...rest)),
  };
}
