import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JwtPayload } from '../crypto.ts';
import { GRAPH_RESOURCE, nowSeconds } from '../state.ts';
import type { SandboxState } from '../state.ts';
import { formatRetryAfter } from '../throttle.ts';

export const ODATA_JSON =
  'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8';

/** Resource units a route costs (SharePoint throttling doc): a number or a function of the request. */
export type RuCost = number | ((request: FastifyRequest) => number);
export type Permission = 'User.Read.All' | 'Files.Read.All' | 'delegated';

export interface GraphRouteConfig {
  ru: RuCost;
  permission: Permission;
}

export interface GraphClaims {
  kind: 'app' | 'user';
  tid: string;
  appid: string;
  /** The signed-in user for delegated tokens. */
  oid?: string;
  roles: string[];
}

const claimsByRequest = new WeakMap<FastifyRequest, GraphClaims>();

export function claimsOf(request: FastifyRequest): GraphClaims {
  return claimsByRequest.get(request)!;
}

function graphDate(date: Date): string {
  return date.toISOString().slice(0, 19);
}

export function clientRequestIdOf(request: FastifyRequest): string {
  const given = request.headers['client-request-id'];
  return typeof given === 'string' && given ? given : request.id;
}

/** Every Graph response carries request-id / client-request-id / x-ms-ags-diagnostic. */
export function stampGraphHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('request-id', request.id);
  reply.header('client-request-id', clientRequestIdOf(request));
  reply.header(
    'x-ms-ags-diagnostic',
    JSON.stringify({
      ServerInfo: { DataCenter: 'Sandbox', Slice: 'E', Ring: '5', ScaleUnit: '000', RoleInstance: 'SB1PEPF00000001' },
    }),
  );
}

/** Graph's error envelope: {"error":{"code","message","innerError":{"date","request-id","client-request-id"}}}. */
export function sendGraphError(
  state: SandboxState,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  inner: Record<string, string> = {},
): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send({
      error: {
        code,
        message,
        innerError: {
          ...inner,
          date: graphDate(state.now()),
          'request-id': request.id,
          'client-request-id': clientRequestIdOf(request),
        },
      },
    });
}

function unauthenticated(
  state: SandboxState,
  request: FastifyRequest,
  reply: FastifyReply,
  message: string,
): FastifyReply {
  reply.header(
    'www-authenticate',
    `Bearer realm="", authorization_uri="${state.loginUrl}/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"`,
  );
  return sendGraphError(state, request, reply, 401, 'InvalidAuthenticationToken', message);
}

function authenticate(state: SandboxState, request: FastifyRequest, reply: FastifyReply): GraphClaims | FastifyReply {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) return unauthenticated(state, request, reply, 'Access token is empty.');
  const token = match[1];
  if (token.split('.').length !== 3) {
    return unauthenticated(
      state,
      request,
      reply,
      'IDX14100: JWT is not well formed, there are no dots (.).\nThe token needs to be in JWS or JWE Compact Serialization Format.',
    );
  }
  const payload: JwtPayload | undefined = state.keys.verifyJwt(token);
  if (!payload) return unauthenticated(state, request, reply, 'Access token validation failure. Invalid signature.');
  if (payload.aud !== GRAPH_RESOURCE)
    return unauthenticated(state, request, reply, 'Access token validation failure. Invalid audience.');
  if (typeof payload.exp !== 'number' || payload.exp <= nowSeconds(state)) {
    return unauthenticated(state, request, reply, 'Lifetime validation failed, the token is expired.');
  }
  if (payload.tid !== state.model.tenant.id)
    return unauthenticated(state, request, reply, 'Access token validation failure. Invalid tenant.');
  return {
    kind: payload.idtyp === 'app' ? 'app' : 'user',
    tid: String(payload.tid),
    appid: String(payload.appid),
    oid: typeof payload.oid === 'string' ? payload.oid : undefined,
    roles: Array.isArray(payload.roles) ? payload.roles.map(String) : [],
  };
}

/**
 * Runs before every Graph handler: authentication, permission, injected faults, then the resource-unit budget.
 * Returns true when the request may proceed (otherwise the reply has been sent).
 */
export function admitGraphRequest(
  state: SandboxState,
  request: FastifyRequest,
  reply: FastifyReply,
  config: GraphRouteConfig,
): boolean {
  const claims = authenticate(state, request, reply);
  if (!('kind' in claims)) return false;
  claimsByRequest.set(request, claims);
  if (config.permission === 'delegated') {
    if (claims.kind === 'app') {
      sendGraphError(
        state,
        request,
        reply,
        400,
        'BadRequest',
        '/me request is only valid with delegated authentication flow.',
      );
      return false;
    }
  } else if (claims.kind === 'user') {
    // The sandbox serves tenant-wide directory and drive data to application tokens only.
    sendGraphError(
      state,
      request,
      reply,
      403,
      'accessDenied',
      'Access denied. The sandbox serves this resource to application (client credentials) tokens only.',
    );
    return false;
  } else if (!claims.roles.includes(config.permission)) {
    sendGraphError(
      state,
      request,
      reply,
      403,
      'accessDenied',
      'Either scp or roles claim need to be present in the token.',
    );
    return false;
  }
  const faults = state.faults;
  const retryAfter = formatRetryAfter(faults.retryAfterSeconds);
  if (faults.throttle429 > 0) {
    faults.throttle429 -= 1;
    reply.header('retry-after', retryAfter);
    sendGraphError(state, request, reply, 429, 'TooManyRequests', 'Please retry again later.', {
      code: '429',
      message: 'Please retry after',
      status: '429',
    });
    return false;
  }
  if (faults.throttle503 > 0) {
    faults.throttle503 -= 1;
    // Corso saw 503s with no body at all; clients must classify them by status and Retry-After alone.
    reply.code(503).header('retry-after', retryAfter).send();
    return false;
  }
  if (faults.serverErrors > 0) {
    faults.serverErrors -= 1;
    sendGraphError(state, request, reply, 500, 'generalException', 'An unspecified error has occurred.');
    return false;
  }
  const units = typeof config.ru === 'function' ? config.ru(request) : config.ru;
  return chargeBudget(state, request, reply, `${claims.appid}/${claims.tid}`, units);
}

/** Charges resource units; on exhaustion answers 429 activityLimitReached with a fractional Retry-After. */
export function chargeBudget(
  state: SandboxState,
  request: FastifyRequest,
  reply: FastifyReply,
  key: string,
  units: number,
): boolean {
  const result = state.budget.charge(key, units, state.now().getTime());
  if (!result.ok) {
    reply.header('retry-after', formatRetryAfter(result.retryAfterSeconds));
    sendGraphError(state, request, reply, 429, 'activityLimitReached', 'The request has been throttled', {
      code: 'throttledRequest',
    });
    return false;
  }
  reply.header('x-ms-resource-unit', String(units));
  if (result.remaining <= result.limit * 0.2) {
    reply.header('ratelimit-limit', String(result.limit));
    reply.header('ratelimit-remaining', String(result.remaining));
    reply.header('ratelimit-reset', String(result.resetSeconds));
  }
  return true;
}
