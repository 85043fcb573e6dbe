import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxState } from '../state.ts';
import { ODATA_JSON, admitGraphRequest, claimsOf, sendGraphError } from './http.ts';
import type { GraphRouteConfig } from './http.ts';
import type { DriveContext } from './serialize.ts';

type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** Registers a Graph GET behind authentication, faults and the resource-unit budget. */
export function graphGet(
  app: FastifyInstance,
  state: SandboxState,
  path: string,
  config: GraphRouteConfig,
  handler: Handler,
): void {
  app.get(path, {
    preHandler: async (request, reply) => {
      if (!admitGraphRequest(state, request, reply, config)) return reply;
      return undefined;
    },
    handler,
  });
}

/** The two ways to address a drive: by its owner (`/users/{id}/drive`) and by id (`/drives/{id}`). */
export const DRIVE_PREFIXES = ['/users/:userId/drive', '/drives/:driveId'];

export function sendUserNotFound(
  state: SandboxState,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
): FastifyReply {
  return sendGraphError(
    state,
    request,
    reply,
    404,
    'Request_ResourceNotFound',
    `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
  );
}

/** Resolves the addressed drive, or answers 404 the way Graph does (including users without a OneDrive). */
export function resolveDrive(
  state: SandboxState,
  request: FastifyRequest,
  reply: FastifyReply,
): DriveContext | undefined {
  const params = request.params as { userId?: string; driveId?: string };
  const appId = claimsOf(request).appid;
  if (params.driveId !== undefined) {
    const found = state.model.driveById(params.driveId);
    if (!found) {
      sendGraphError(state, request, reply, 404, 'itemNotFound', 'The resource could not be found.');
      return undefined;
    }
    return { state, user: found.user, drive: found.drive, appId };
  }
  const user = state.model.user(params.userId ?? '');
  if (!user) {
    sendUserNotFound(state, request, reply, params.userId ?? '');
    return undefined;
  }
  if (!user.drive) {
    // App-only calls never provision a OneDrive; both bodies below are documented variants (reference §2.3).
    if (user.missingDrive === 'fileNotFound')
      sendGraphError(state, request, reply, 404, 'UnknownError', '404 FILE NOT FOUND');
    else sendGraphError(state, request, reply, 404, 'ResourceNotFound', "User's mysite not found.");
    return undefined;
  }
  return { state, user, drive: user.drive, appId };
}

/** Query string in Graph's nextLink style: option names kept verbatim ($top, $select), values encoded. */
export function odataQuery(params: Array<[string, string | undefined]>): string {
  return params
    .filter((p): p is [string, string] => p[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
}

export function queryOf(request: FastifyRequest): Record<string, string | undefined> {
  return request.query as Record<string, string | undefined>;
}

/** Sends a Graph JSON body with the OData content type. */
export function sendOData(reply: FastifyReply, body: Record<string, unknown>): FastifyReply {
  return reply.header('content-type', ODATA_JSON).send(body);
}
