import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SandboxState } from '../state.ts';
import { claimsOf, sendGraphError } from './http.ts';
import { DRIVE_PREFIXES, graphGet, odataQuery, queryOf, resolveDrive, sendOData, sendUserNotFound } from './routing.ts';
import { SINGLE_USER_ONLY, USER_PROPERTIES, driveJson, parseSelect, userJson } from './serialize.ts';
import { OPTIONAL_USER_PROPERTIES } from '../variance.ts';

const DEFAULT_TOP = 100;
const MAX_TOP = 999;

interface UsersCursor {
  k: 'users';
  o: number;
  /** Variance profile: this page was the empty one; the next starts at the same offset. */
  e?: 1;
}

/** Directory cost model (reference §2.2): 2 units, minus one with $select, minus one with $top < 20. */
function usersCost(request: FastifyRequest): number {
  const q = queryOf(request);
  let cost = 2;
  if (q.$select) cost -= 1;
  if (q.$top && Number(q.$top) < 20) cost -= 1;
  return Math.max(1, cost);
}

export function registerUserRoutes(app: FastifyInstance, state: SandboxState): void {
  graphGet(app, state, '/users', { ru: usersCost, permission: 'User.Read.All' }, async (request, reply) => {
    const q = queryOf(request);
    if (q.$filter !== undefined || q.$search !== undefined || q.$orderby !== undefined) {
      return sendGraphError(
        state,
        request,
        reply,
        400,
        'Request_UnsupportedQuery',
        'The sandbox does not implement $filter, $search or $orderby on users.',
      );
    }
    let top = DEFAULT_TOP;
    if (q.$top !== undefined) {
      top = Number(q.$top);
      if (!Number.isInteger(top) || top < 1 || top > MAX_TOP) {
        return sendGraphError(
          state,
          request,
          reply,
          400,
          'Request_UnsupportedQuery',
          `Invalid page size specified: '${q.$top}'. Must be between 1 and ${MAX_TOP} inclusive.`,
        );
      }
    }
    const select = parseSelect(q.$select);
    const invalid = select?.find((p) => !USER_PROPERTIES.has(p));
    if (invalid) {
      return sendGraphError(
        state,
        request,
        reply,
        400,
        'Request_BadRequest',
        `Parsing OData Select and Expand failed: Could not find a property named '${invalid}' on type 'microsoft.graph.user'.`,
      );
    }
    const singleOnly = select?.find((p) => SINGLE_USER_ONLY.has(p));
    if (singleOnly) {
      return sendGraphError(
        state,
        request,
        reply,
        501,
        'NotImplemented',
        `The '${singleOnly}' property can only be selected when getting a single user.`,
      );
    }
    let offset = 0;
    if (q.$skiptoken !== undefined) {
      const cursor = state.keys.unseal<UsersCursor>(q.$skiptoken);
      if (!cursor || cursor.k !== 'users')
        return sendGraphError(state, request, reply, 400, 'Request_BadRequest', 'Invalid $skiptoken.');
      offset = cursor.o;
    }
    const users = state.model.tenant.users;
    if (state.variance && q.$skiptoken === undefined && users.length > 0) {
      // "A page may contain zero items and still have a nextLink" (paging.md).
      const skiptoken = state.keys.seal({ k: 'users', o: 0, e: 1 } satisfies UsersCursor);
      return sendOData(reply, {
        '@odata.context': `${state.graphUrl}/$metadata#users`,
        '@odata.nextLink': `${state.graphUrl}/users?${odataQuery([
          ['$select', q.$select],
          ['$top', q.$top],
          ['$count', q.$count],
          ['$skiptoken', skiptoken],
        ])}`,
        value: [],
      });
    }
    const page = users.slice(offset, offset + top);
    const body: Record<string, unknown> = {
      '@odata.context': `${state.graphUrl}/$metadata#users${select ? `(${select.join(',')})` : ''}`,
    };
    if (q.$count === 'true' && offset === 0) body['@odata.count'] = users.length;
    if (offset + top < users.length) {
      const skiptoken = state.keys.seal({ k: 'users', o: offset + top } satisfies UsersCursor);
      body['@odata.nextLink'] = `${state.graphUrl}/users?${odataQuery([
        ['$select', q.$select],
        ['$top', q.$top],
        ['$count', q.$count],
        ['$skiptoken', skiptoken],
      ])}`;
    }
    body.value = page.map((u) =>
      state.variance
        ? state.variance.reshape(userJson(u, select), OPTIONAL_USER_PROPERTIES, u.id)
        : userJson(u, select),
    );
    return sendOData(reply, body);
  });

  graphGet(app, state, '/users/:userId', { ru: 1, permission: 'User.Read.All' }, async (request, reply) => {
    const id = (request.params as { userId: string }).userId;
    const user = state.model.user(id);
    if (!user) return sendUserNotFound(state, request, reply, id);
    const select = parseSelect(queryOf(request).$select);
    const invalid = select?.find((p) => !USER_PROPERTIES.has(p));
    if (invalid) {
      return sendGraphError(
        state,
        request,
        reply,
        400,
        'Request_BadRequest',
        `Parsing OData Select and Expand failed: Could not find a property named '${invalid}' on type 'microsoft.graph.user'.`,
      );
    }
    return sendOData(reply, {
      '@odata.context': `${state.graphUrl}/$metadata#users/$entity`,
      ...userJson(user, select),
    });
  });

  graphGet(app, state, '/me', { ru: 1, permission: 'delegated' }, async (request, reply) => {
    const user = state.model.user(claimsOf(request).oid ?? '');
    if (!user) return sendUserNotFound(state, request, reply, claimsOf(request).oid ?? '');
    return sendOData(reply, {
      '@odata.context': `${state.graphUrl}/$metadata#users/$entity`,
      ...userJson(user, parseSelect(queryOf(request).$select)),
    });
  });

  for (const prefix of DRIVE_PREFIXES) {
    graphGet(app, state, prefix, { ru: 1, permission: 'Files.Read.All' }, async (request, reply) => {
      const ctx = resolveDrive(state, request, reply);
      if (!ctx) return reply;
      const json = driveJson(ctx);
      const select = parseSelect(queryOf(request).$select);
      const projected = select ? Object.fromEntries(Object.entries(json).filter(([k]) => select.includes(k))) : json;
      return sendOData(reply, { '@odata.context': `${state.graphUrl}/$metadata#drives/$entity`, ...projected });
    });
  }
}
