import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { APP_ROLES, GRAPH_RESOURCE } from '../state.ts';
import type { SandboxState } from '../state.ts';
import {
  correlationIdOf,
  describeAad,
  resolveTenant,
  sendAadErrorPage,
  validRedirectUri,
  withQuery,
} from './errors.ts';
import { parseScopes } from './scopes.ts';

type Query = Record<string, string | undefined>;

/**
 * Tenant-wide admin consent (reference §1.2). The admin is signed in and agrees at once unless
 * `denyConsent` is set on the sandbox or the request carries `sandbox_deny=1`.
 */
export function registerConsentRoutes(app: FastifyInstance, state: SandboxState): void {
  app.get('/:tenant/adminconsent', async (request, reply) => handle(state, request, reply, 'v1'));
  app.get('/:tenant/v2.0/adminconsent', async (request, reply) => handle(state, request, reply, 'v2'));
}

function handle(state: SandboxState, request: FastifyRequest, reply: FastifyReply, version: 'v1' | 'v2'): FastifyReply {
  const q = request.query as Query;
  const tenantName = (request.params as { tenant: string }).tenant;
  const tenantRef = resolveTenant(state, tenantName);
  if (!tenantRef || tenantRef.kind === 'consumers') {
    return sendAadErrorPage(
      state,
      reply,
      90002,
      `Tenant '${tenantName}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`,
    );
  }
  if (q.client_id !== state.clientId) {
    return sendAadErrorPage(
      state,
      reply,
      700016,
      `Application with identifier '${q.client_id ?? ''}' was not found in the directory '${tenantName}'.`,
    );
  }
  if (!validRedirectUri(state, q.redirect_uri)) {
    return sendAadErrorPage(
      state,
      reply,
      50011,
      `The redirect URI '${q.redirect_uri ?? ''}' specified in the request does not match the redirect URIs configured for the application '${state.clientId}'.`,
    );
  }
  const redirectUri = q.redirect_uri;
  const traceId = randomUUID();
  const describe = (code: number, text: string) => describeAad(state, code, text, correlationIdOf(request), traceId);

  if (version === 'v2') {
    if (tenantRef.kind === 'common') {
      return reply.redirect(
        withQuery(redirectUri, [
          ['error', 'invalid_request'],
          [
            'error_description',
            'The /common endpoint is not supported for admin consent with explicit scopes. Use /organizations or the tenant id.',
          ],
          ['state', q.state],
        ]),
        302,
      );
    }
    const parsed = parseScopes(q.scope);
    if (!q.scope || parsed.graph.length === 0 || parsed.otherResources.length > 0) {
      return reply.redirect(
        withQuery(redirectUri, [
          ['error', 'invalid_request'],
          ['error_description', describe(900144, "The request body must contain the following parameter: 'scope'.")],
          ['state', q.state],
        ]),
        302,
      );
    }
  }

  if (state.denyConsent || q.sandbox_deny === '1') {
    if (version === 'v1') {
      return reply.redirect(
        withQuery(redirectUri, [
          ['error', 'permission_denied'],
          ['error_description', 'The admin canceled the request'],
          ['state', q.state],
        ]),
        302,
      );
    }
    // The documented v2 error redirect still carries admin_consent=True.
    return reply.redirect(
      withQuery(redirectUri, [
        ['admin_consent', 'True'],
        ['error', 'consent_required'],
        ['error_description', describe(65004, 'The resource owner or authorization server denied the request.')],
        ['state', q.state],
      ]),
      302,
    );
  }

  // On /organizations (or /common for v1) the admin who signs in is the demo tenant's.
  const tenantId = tenantRef.kind === 'tenant' ? tenantRef.id : state.model.tenant.id;
  state.consentedTenants.add(tenantId);
  const params: Array<[string, string | undefined]> = [
    ['admin_consent', 'True'],
    ['tenant', tenantId],
    ['state', q.state],
  ];
  if (version === 'v2') params.push(['scope', APP_ROLES.map((r) => `${GRAPH_RESOURCE}/${r}`).join(' ')]);
  return reply.redirect(withQuery(redirectUri, params), 302);
}
