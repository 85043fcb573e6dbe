import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_DELTA_SESSIONS } from '../state.ts';
import type { DeltaSession, SandboxState } from '../state.ts';
import type { MsDrive, MsItem } from '../types.ts';
import { sendGraphError } from './http.ts';
import { DRIVE_PREFIXES, graphGet, queryOf, resolveDrive, sendOData } from './routing.ts';
import { deletedItemJson, listedItemJson, parseSelect, projectItem } from './serialize.ts';
import type { DriveContext } from './serialize.ts';

const MAX_DELTA_TOP = 1000;
const RESYNC_MESSAGE =
  "Resync required. Replace any local items with the server's version (including deletes) if you're sure that the service was up to date with your local changes when you last sync'd. Upload any local changes that the server doesn't know about.";

/** Page token (a nextLink inside a round) or round token (a deltaLink). Both are sealed, hence opaque. */
type DeltaToken =
  { t: 'p'; s: string; o: number; e?: 1 } | { t: 'd'; d: string; w: number; top?: number; sel?: string };

/** Delta without a token costs 2 RU, with any token 1 RU (SharePoint throttling doc). */
function deltaCost(request: FastifyRequest): number {
  return queryOf(request).token ? 1 : 2;
}

export function registerDeltaRoutes(app: FastifyInstance, state: SandboxState): void {
  for (const prefix of DRIVE_PREFIXES) {
    graphGet(
      app,
      state,
      `${prefix}/root/delta`,
      { ru: deltaCost, permission: 'Files.Read.All' },
      async (request, reply) => {
        const ctx = resolveDrive(state, request, reply);
        if (!ctx) return reply;
        return serveDelta(state, ctx, request, reply);
      },
    );
    // ODB historically rejected delta below the root; the connector is expected to filter a root delta instead.
    graphGet(
      app,
      state,
      `${prefix}/items/:itemId/delta`,
      { ru: 2, permission: 'Files.Read.All' },
      async (request, reply) => {
        const ctx = resolveDrive(state, request, reply);
        if (!ctx) return reply;
        const itemId = (request.params as { itemId: string }).itemId;
        if (itemId === 'root' || itemId === ctx.drive.rootId) return serveDelta(state, ctx, request, reply);
        return sendGraphError(state, request, reply, 501, 'notSupported', 'view.delta can only be called on the root.');
      },
    );
  }
}

function deltaUrl(state: SandboxState, drive: MsDrive, token: DeltaToken): string {
  return `${state.graphUrl}/drives/${encodeURIComponent(drive.id)}/root/delta?token=${state.keys.seal(token)}`;
}

function openSession(state: SandboxState, session: DeltaSession): string {
  const id = randomUUID();
  state.deltaSessions.set(id, session);
  while (state.deltaSessions.size > MAX_DELTA_SESSIONS) {
    state.deltaSessions.delete(state.deltaSessions.keys().next().value!);
  }
  return id;
}

function pageSizeOf(state: SandboxState, raw: string | number | undefined): number {
  const top = Number(raw);
  return Number.isInteger(top) && top > 0 ? Math.min(top, MAX_DELTA_TOP) : state.deltaPageSize;
}

/** Live items in preorder that changed after `watermark` or after `since`, with their ancestors; then deletions. */
function changedIds(state: SandboxState, drive: MsDrive, changed: (item: MsItem) => boolean): string[] {
  const wanted = new Set<string>();
  const deleted: MsItem[] = [];
  for (const item of drive.items.values()) {
    if (!changed(item)) continue;
    if (item.deleted) {
      deleted.push(item);
      continue;
    }
    // Changed items come with their ancestors up to the root, so the client can place them.
    for (
      let cur: MsItem | undefined = item;
      cur;
      cur = cur.parentId === null ? undefined : drive.items.get(cur.parentId)
    ) {
      wanted.add(cur.id);
    }
  }
  const live = state.model
    .preorder(drive)
    .filter((i) => wanted.has(i.id))
    .map((i) => i.id);
  return [...live, ...deleted.sort((a, b) => a.changeSeq - b.changeSeq).map((i) => i.id)];
}

function fullSession(state: SandboxState, drive: MsDrive, pageSize: number, select: string | undefined): DeltaSession {
  return {
    driveId: drive.id,
    ids: state.model.preorder(drive).map((i) => i.id),
    watermark: drive.changeSeq,
    pageSize,
    select,
  };
}

function sendResync(
  state: SandboxState,
  ctx: DriveContext,
  request: FastifyRequest,
  reply: FastifyReply,
  select: string | undefined,
): FastifyReply {
  const fresh = fullSession(state, ctx.drive, state.deltaPageSize, select);
  const sessionId = openSession(state, fresh);
  reply.header('location', deltaUrl(state, ctx.drive, { t: 'p', s: sessionId, o: 0 }));
  return sendGraphError(state, request, reply, 410, 'resyncRequired', RESYNC_MESSAGE, {
    code: 'resyncChangesApplyDifferences',
  });
}

function serveDelta(
  state: SandboxState,
  ctx: DriveContext,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const q = queryOf(request);
  const { drive } = ctx;
  const raw = q.token;
  if (raw === undefined) {
    const session = fullSession(state, drive, pageSizeOf(state, q.$top), q.$select);
    return servePage(state, ctx, reply, openSession(state, session), 0, true);
  }
  if (raw === 'latest') {
    const body = { '@odata.context': `${state.graphUrl}/$metadata#Collection(driveItem)`, value: [] as unknown[] };
    return sendOData(reply, {
      ...body,
      '@odata.deltaLink': deltaUrl(state, drive, { t: 'd', d: drive.id, w: drive.changeSeq, sel: q.$select }),
    });
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(raw) && !Number.isNaN(Date.parse(raw))) {
    // Timestamp tokens (ODB only, last resort): changes since that instant.
    const since = Date.parse(raw);
    const ids = changedIds(state, drive, (i) => Date.parse(i.changedAt) > since);
    const session = {
      driveId: drive.id,
      ids,
      watermark: drive.changeSeq,
      pageSize: pageSizeOf(state, q.$top),
      select: q.$select,
    };
    return servePage(state, ctx, reply, openSession(state, session), 0, true);
  }
  const token = state.keys.unseal<DeltaToken>(raw);
  if (!token) return sendGraphError(state, request, reply, 400, 'invalidRequest', 'Invalid delta token.');
  if (token.t === 'p') {
    const session = state.deltaSessions.get(token.s);
    if (!session) return sendResync(state, ctx, request, reply, q.$select);
    if (session.driveId !== drive.id)
      return sendGraphError(state, request, reply, 400, 'invalidRequest', 'Invalid delta token.');
    return servePage(state, ctx, reply, token.s, token.o, token.e !== 1);
  }
  if (token.d !== drive.id) return sendGraphError(state, request, reply, 400, 'invalidRequest', 'Invalid delta token.');
  if (state.faults.deltaTokenExpired) {
    state.faults.deltaTokenExpired = false;
    return sendResync(state, ctx, request, reply, token.sel);
  }
  const ids = changedIds(state, drive, (i) => i.changeSeq > token.w);
  const session = {
    driveId: drive.id,
    ids,
    watermark: drive.changeSeq,
    pageSize: pageSizeOf(state, token.top),
    select: token.sel,
  };
  return servePage(state, ctx, reply, openSession(state, session), 0, true);
}

function servePage(
  state: SandboxState,
  ctx: DriveContext,
  reply: FastifyReply,
  sessionId: string,
  offset: number,
  roundStart: boolean,
): FastifyReply {
  const session = state.deltaSessions.get(sessionId)!;
  const body: Record<string, unknown> = { '@odata.context': `${state.graphUrl}/$metadata#Collection(driveItem)` };
  if (roundStart && offset === 0 && state.faults.emptyDeltaPages) {
    body['@odata.nextLink'] = deltaUrl(state, ctx.drive, { t: 'p', s: sessionId, o: 0, e: 1 });
    body.value = [];
    return sendOData(reply, body);
  }
  const ids = session.ids.slice(offset, offset + session.pageSize);
  // The same item can show up more than once in a round; clients must keep the last occurrence.
  if (state.faults.duplicateDeltaItems && offset > 0) ids.unshift(session.ids[offset - 1]);
  const select = parseSelect(session.select);
  body.value = ids.map((id) => {
    const item = ctx.drive.items.get(id)!;
    return projectItem(item.deleted ? deletedItemJson(ctx, item) : listedItemJson(ctx, item, 'delta'), select);
  });
  const next = offset + session.pageSize;
  if (next < session.ids.length) {
    body['@odata.nextLink'] = deltaUrl(state, ctx.drive, { t: 'p', s: sessionId, o: next });
  } else {
    const top = session.pageSize === state.deltaPageSize ? undefined : session.pageSize;
    body['@odata.deltaLink'] = deltaUrl(state, ctx.drive, {
      t: 'd',
      d: ctx.drive.id,
      w: session.watermark,
      top,
      sel: session.select,
    });
  }
  return sendOData(reply, body);
}
