import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { makeDownloadUrl } from '../download.ts';
import type { SandboxState } from '../state.ts';
import type { MsItem } from '../types.ts';
import { sendGraphError } from './http.ts';
import { DRIVE_PREFIXES, graphGet, odataQuery, queryOf, resolveDrive, sendOData } from './routing.ts';
import { itemJson, listedItemJson, parseSelect, projectItem } from './serialize.ts';
import type { DriveContext } from './serialize.ts';

const DEFAULT_CHILDREN_TOP = 200;
const MAX_CHILDREN_TOP = 1000;

interface ChildrenCursor {
  k: 'children';
  p: string;
  o: number;
}

function itemOrReply(
  state: SandboxState,
  request: FastifyRequest,
  reply: FastifyReply,
): { ctx: DriveContext; item: MsItem } | undefined {
  const ctx = resolveDrive(state, request, reply);
  if (!ctx) return undefined;
  const raw = (request.params as { itemId?: string }).itemId;
  const itemId = raw === undefined || raw === 'root' ? ctx.drive.rootId : raw;
  const item = state.model.liveItem(ctx.drive, itemId);
  if (!item) {
    if (state.variance) state.variance.notFound(request, reply, itemId, state.now().toISOString().slice(0, 19));
    else sendGraphError(state, request, reply, 404, 'itemNotFound', 'The resource could not be found.');
    return undefined;
  }
  return { ctx, item };
}

/** The URL path below /v1.0 that addressed the request, used to build nextLinks on the same resource. */
function addressedPath(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return path.slice(path.indexOf('/v1.0') + '/v1.0'.length);
}

export function registerItemRoutes(app: FastifyInstance, state: SandboxState): void {
  for (const prefix of DRIVE_PREFIXES) {
    for (const path of [`${prefix}/root`, `${prefix}/items/:itemId`]) {
      graphGet(app, state, path, { ru: 1, permission: 'Files.Read.All' }, async (request, reply) => {
        const found = itemOrReply(state, request, reply);
        if (!found) return reply;
        const json = itemJson(found.ctx, found.item, 'full');
        return sendOData(reply, {
          '@odata.context': `${state.graphUrl}/$metadata#users('${found.ctx.user.id}')/drive/items/$entity`,
          ...projectItem(json, parseSelect(queryOf(request).$select)),
        });
      });

      graphGet(app, state, `${path}/children`, { ru: 2, permission: 'Files.Read.All' }, async (request, reply) => {
        const found = itemOrReply(state, request, reply);
        if (!found) return reply;
        const q = queryOf(request);
        let top = DEFAULT_CHILDREN_TOP;
        if (q.$top !== undefined) {
          top = Number(q.$top);
          if (!Number.isInteger(top) || top < 1)
            return sendGraphError(state, request, reply, 400, 'invalidRequest', `Invalid $top value: '${q.$top}'.`);
          top = Math.min(top, MAX_CHILDREN_TOP);
        }
        let offset = 0;
        const token = q.$skiptoken ?? q.$skipToken;
        if (token !== undefined) {
          const cursor = state.keys.unseal<ChildrenCursor>(token);
          if (!cursor || cursor.k !== 'children' || cursor.p !== found.item.id) {
            return sendGraphError(state, request, reply, 400, 'invalidRequest', 'Invalid $skiptoken.');
          }
          offset = cursor.o;
        }
        // Offsets over the live listing: like Graph, paging children is not guaranteed complete under writes.
        const children = found.item.kind === 'folder' ? state.model.liveChildren(found.ctx.drive, found.item.id) : [];
        const select = parseSelect(q.$select);
        const body: Record<string, unknown> = { '@odata.context': `${state.graphUrl}/$metadata#Collection(driveItem)` };
        if (offset + top < children.length) {
          const next = state.keys.seal({ k: 'children', p: found.item.id, o: offset + top } satisfies ChildrenCursor);
          body['@odata.nextLink'] = `${state.graphUrl}${addressedPath(request)}?${odataQuery([
            ['$select', q.$select],
            ['$top', q.$top],
            ['$skiptoken', next],
          ])}`;
        }
        body.value = children
          .slice(offset, offset + top)
          .map((c) => projectItem(listedItemJson(found.ctx, c, 'full'), select));
        return sendOData(reply, body);
      });
    }

    graphGet(
      app,
      state,
      `${prefix}/items/:itemId/content`,
      { ru: 1, permission: 'Files.Read.All' },
      async (request, reply) => {
        const found = itemOrReply(state, request, reply);
        if (!found) return reply;
        if (found.item.kind !== 'file') {
          return sendGraphError(
            state,
            request,
            reply,
            400,
            'invalidRequest',
            'Only items with a file facet can be downloaded.',
          );
        }
        const { item, ctx } = found;
        // The docs send Range to the download URL, "not to the request for /content" (reference §2.7): refused here.
        if (request.headers.range !== undefined) {
          return sendGraphError(
            state,
            request,
            reply,
            416,
            'invalidRange',
            'Range requests are served by the download URL (@microsoft.graph.downloadUrl), not by /content.',
          );
        }
        if (state.variance?.vanish(state.model, ctx.drive.id, item, state.now().toISOString().slice(0, 19) + 'Z')) {
          return state.variance.notFound(request, reply, item.id, state.now().toISOString().slice(0, 19));
        }
        const ifNoneMatch = request.headers['if-none-match'];
        const tags = [`"{${item.uniqueId}},${item.eTagVersion}"`, `"c:{${item.uniqueId}},${item.cTagVersion}"`];
        if (typeof ifNoneMatch === 'string' && tags.includes(ifNoneMatch)) return reply.code(304).send();
        return reply
          .code(302)
          .header('location', makeDownloadUrl(state, ctx.drive, item, ctx.appId))
          .send();
      },
    );
  }
}
