import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomToken } from '../crypto.ts';
import { GRAPH_RESOURCE, accessTokenLifetime, nowSeconds } from '../state.ts';
import type { SandboxState } from '../state.ts';
import { signedInById, type SignedIn } from './directory.ts';
import { resolveTenant, sendAadError } from './errors.ts';
import { OIDC_SCOPES, expandDelegated, parseScopes } from './scopes.ts';

const REFRESH_TOKEN_SECONDS = 90 * 86_400;

type Form = Record<string, string | undefined>;
type Fail = (status: 400 | 401, error: string, code: number, text: string) => FastifyReply;

function clientCredentialsOf(request: FastifyRequest, form: Form): { clientId?: string; secret?: string } {
  const header = request.headers.authorization;
  if (header?.toLowerCase().startsWith('basic ')) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
      return {
        clientId: decodeURIComponent(decoded.slice(0, colon)),
        secret: decodeURIComponent(decoded.slice(colon + 1)),
      };
    }
  }
  return { clientId: form.client_id, secret: form.client_secret };
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function registerTokenRoute(app: FastifyInstance, state: SandboxState): void {
  app.post('/:tenant/oauth2/v2.0/token', async (request, reply) => {
    const fail: Fail = (status, error, code, text) => sendAadError(state, request, reply, status, error, code, text);
    const form: Form = request.body && typeof request.body === 'object' ? (request.body as Form) : {};
    const tenantRef = resolveTenant(state, (request.params as { tenant: string }).tenant);
    const tenantName = (request.params as { tenant: string }).tenant;
    if (!tenantRef) {
      return fail(
        400,
        'invalid_request',
        90002,
        `Tenant '${tenantName}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`,
      );
    }
    const grantType = form.grant_type;
    if (!grantType)
      return fail(
        400,
        'invalid_request',
        900144,
        "The request body must contain the following parameter: 'grant_type'.",
      );
    const { clientId, secret } = clientCredentialsOf(request, form);
    if (!clientId)
      return fail(
        400,
        'invalid_request',
        900144,
        "The request body must contain the following parameter: 'client_id'.",
      );
    if (clientId !== state.clientId) {
      return fail(
        400,
        'unauthorized_client',
        700016,
        `Application with identifier '${clientId}' was not found in the directory '${tenantName}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant.`,
      );
    }
    if (!secret) {
      return fail(
        401,
        'invalid_client',
        7000218,
        "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
      );
    }
    if (!sameSecret(secret, state.clientSecret)) {
      return fail(
        401,
        'invalid_client',
        7000215,
        `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${state.clientId}'.`,
      );
    }
    switch (grantType) {
      case 'client_credentials':
        return clientCredentials(state, form, tenantRef, tenantName, fail, reply);
      case 'authorization_code':
        return authorizationCode(state, form, fail, reply);
      case 'refresh_token':
        return refreshToken(state, form, fail, reply);
      default:
        return fail(
          400,
          'unsupported_grant_type',
          70003,
          `The app requested an unsupported grant type '${grantType}'.`,
        );
    }
  });
}

function clientCredentials(
  state: SandboxState,
  form: Form,
  tenantRef: NonNullable<ReturnType<typeof resolveTenant>>,
  tenantName: string,
  fail: Fail,
  reply: FastifyReply,
): FastifyReply {
  if (tenantRef.kind !== 'tenant') {
    return fail(
      400,
      'invalid_request',
      9001023,
      'The grant type is not supported over the /common or /consumers endpoints. Please use the /organizations or tenant-specific endpoint.',
    );
  }
  if (!form.scope)
    return fail(400, 'invalid_request', 900144, "The request body must contain the following parameter: 'scope'.");
  const scopes = form.scope.split(/\s+/).filter(Boolean);
  const parsed = parseScopes(form.scope);
  if (parsed.otherResources.length + (parsed.graph.length > 0 ? 1 : 0) > 1) {
    return fail(
      400,
      'invalid_scope',
      700022,
      `The provided value for the input parameter scope is not valid because it contains more than one resource. Scope ${form.scope} is not valid.`,
    );
  }
  if (parsed.otherResources.length > 0) {
    return fail(
      400,
      'invalid_resource',
      500011,
      `The resource principal named ${parsed.otherResources[0]} was not found in the tenant named ${tenantName}. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant.`,
    );
  }
  if (scopes.length !== 1 || parsed.graph[0] !== '.default') {
    return fail(
      400,
      'invalid_scope',
      70011,
      `The provided request must include a 'scope' input parameter. The provided value for the input parameter 'scope' is not valid. The scope ${form.scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
    );
  }
  if (!state.consentedTenants.has(tenantRef.id)) {
    return fail(
      400,
      'unauthorized_client',
      700016,
      `Application with identifier '${state.clientId}' was not found in the directory '${tenantName}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.`,
    );
  }
  const lifetime = accessTokenLifetime(state);
  const iat = nowSeconds(state);
  const tid = tenantRef.id;
  const accessToken = state.keys.signJwt({
    aud: GRAPH_RESOURCE,
    iss: `https://sts.windows.net/${tid}/`,
    iat,
    nbf: iat - 300,
    exp: iat + lifetime,
    app_displayname: 'Custody sandbox app',
    appid: state.clientId,
    appidacr: '1',
    idp: `https://sts.windows.net/${tid}/`,
    idtyp: 'app',
    oid: randomUUID(),
    roles: [...state.appRoles],
    sub: randomUUID(),
    tid,
    uti: randomToken('', 16),
    ver: '1.0',
  });
  return reply
    .header('cache-control', 'no-store, no-cache')
    .send({ token_type: 'Bearer', expires_in: lifetime, ext_expires_in: lifetime, access_token: accessToken });
}

function authorizationCode(state: SandboxState, form: Form, fail: Fail, reply: FastifyReply): FastifyReply {
  if (!form.code)
    return fail(400, 'invalid_request', 900144, "The request body must contain the following parameter: 'code'.");
  const grant = state.authCodes.get(form.code);
  if (!grant || grant.clientId !== state.clientId) {
    return fail(400, 'invalid_grant', 9002313, 'Invalid request. Request is malformed or invalid.');
  }
  if (grant.redeemed)
    return fail(
      400,
      'invalid_grant',
      54005,
      'OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.',
    );
  if (grant.expiresAt <= state.now().getTime()) {
    return fail(
      400,
      'invalid_grant',
      70008,
      'The provided authorization code or refresh token has expired due to inactivity. Send a new interactive authorization request for this user and resource.',
    );
  }
  if (form.redirect_uri !== grant.redirectUri) {
    return fail(
      400,
      'invalid_grant',
      500112,
      'The reply address does not match the reply address provided when requesting Authorization code.',
    );
  }
  if (grant.codeChallenge) {
    const verifier = form.code_verifier ?? '';
    const computed =
      grant.codeChallengeMethod === 'plain' ? verifier : createHash('sha256').update(verifier).digest('base64url');
    if (!verifier || computed !== grant.codeChallenge) {
      return fail(
        400,
        'invalid_grant',
        501481,
        'The Code_Verifier does not match the code_challenge supplied in the authorization request.',
      );
    }
  }
  grant.redeemed = true;
  const user = signedInById(state, grant.userId)!;
  return issueDelegated(state, reply, user, grant.scopes, grant.nonce);
}

function refreshToken(state: SandboxState, form: Form, fail: Fail, reply: FastifyReply): FastifyReply {
  if (!form.refresh_token)
    return fail(
      400,
      'invalid_request',
      900144,
      "The request body must contain the following parameter: 'refresh_token'.",
    );
  const grant = state.refreshTokens.get(form.refresh_token);
  if (!grant || grant.clientId !== state.clientId)
    return fail(400, 'invalid_grant', 9002313, 'Invalid request. Request is malformed or invalid.');
  if (grant.revoked) {
    return fail(
      400,
      'invalid_grant',
      50173,
      'The provided grant has expired due to it being revoked, a fresh auth token is needed. The user might have changed or reset their password.',
    );
  }
  if (grant.expiresAt <= state.now().getTime()) {
    return fail(
      400,
      'invalid_grant',
      700082,
      'The refresh token has expired due to inactivity. The token was issued on a date and was inactive for 90.00:00:00.',
    );
  }
  let scopes = grant.scopes;
  if (form.scope) {
    const parsed = parseScopes(form.scope);
    const wanted = expandDelegated(parsed.graph);
    const granted = grant.scopes.filter((s) => !OIDC_SCOPES.has(s));
    const extra = wanted.filter((s) => !granted.includes(s));
    if (extra.length > 0) {
      return fail(
        400,
        'invalid_grant',
        65001,
        `The user or administrator has not consented to use the application with ID '${state.clientId}' named 'Custody sandbox app'. Send an interactive authorization request for this user and resource.`,
      );
    }
    // Keep offline_access so the rotated refresh token is issued again.
    scopes = [
      ...new Set([...parsed.oidc, ...wanted, ...(grant.scopes.includes('offline_access') ? ['offline_access'] : [])]),
    ];
  }
  const user = signedInById(state, grant.userId)!;
  return issueDelegated(state, reply, user, scopes, undefined);
}

function issueDelegated(
  state: SandboxState,
  reply: FastifyReply,
  user: SignedIn,
  scopes: string[],
  nonce: string | undefined,
): FastifyReply {
  const parsed = parseScopes(scopes.join(' '));
  const graphScopes = expandDelegated(parsed.graph.length > 0 ? parsed.graph : ['User.Read']);
  const tid = user.tid;
  const roles = state.directoryRoleClaims ? { wids: user.wids } : {};
  const lifetime = accessTokenLifetime(state);
  const iat = nowSeconds(state);
  const accessToken = state.keys.signJwt({
    aud: GRAPH_RESOURCE,
    iss: `https://sts.windows.net/${tid}/`,
    iat,
    nbf: iat - 300,
    exp: iat + lifetime,
    appid: state.clientId,
    idtyp: 'user',
    name: user.name,
    oid: user.oid,
    scp: graphScopes.join(' '),
    sub: randomUUID(),
    tid,
    upn: user.upn,
    uti: randomToken('', 16),
    ver: '1.0',
    ...roles,
  });
  const body: Record<string, unknown> = {
    token_type: 'Bearer',
    scope: [...graphScopes, ...parsed.oidc.filter((s) => s !== 'offline_access')].join(' '),
    expires_in: lifetime,
    ext_expires_in: lifetime,
    access_token: accessToken,
  };
  if (parsed.oidc.includes('offline_access')) {
    const refresh = randomToken('0.A');
    state.refreshTokens.set(refresh, {
      clientId: state.clientId,
      userId: user.oid,
      scopes: [...parsed.oidc, ...graphScopes],
      expiresAt: state.now().getTime() + REFRESH_TOKEN_SECONDS * 1000,
      revoked: false,
    });
    body.refresh_token = refresh;
  }
  if (parsed.oidc.includes('openid')) {
    body.id_token = state.keys.signJwt({
      aud: state.clientId,
      iss: `${state.loginUrl}/${tid}/v2.0`,
      iat,
      nbf: iat,
      exp: iat + 3600,
      name: user.name,
      ...(nonce ? { nonce } : {}),
      oid: user.oid,
      preferred_username: user.upn,
      sub: createHash('sha256').update(`${user.oid}:${state.clientId}`).digest('base64url').slice(0, 43),
      tid,
      ver: '2.0',
      ...roles,
    });
  }
  return reply.header('cache-control', 'no-store, no-cache').send(body);
}
