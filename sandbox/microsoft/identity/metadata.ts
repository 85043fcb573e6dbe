import type { FastifyInstance } from 'fastify';
import type { SandboxState } from '../state.ts';
import { resolveTenant, sendAadError } from './errors.ts';

/** OIDC discovery, JWKS and MSAL's instance discovery, all pointing back at the sandbox origin. */
export function registerMetadataRoutes(app: FastifyInstance, state: SandboxState): void {
  app.get('/:tenant/v2.0/.well-known/openid-configuration', async (request, reply) => {
    const segment = (request.params as { tenant: string }).tenant;
    const ref = resolveTenant(state, segment);
    if (!ref) {
      return sendAadError(
        state,
        request,
        reply,
        400,
        'invalid_tenant',
        90002,
        `Tenant '${segment}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`,
      );
    }
    // For the multi-tenant aliases the issuer keeps the literal "{tenantid}" placeholder, as Entra's does.
    const issuerTenant = ref.kind === 'tenant' ? ref.id : '{tenantid}';
    const base = `${state.loginUrl}/${segment}`;
    return reply.header('access-control-allow-origin', '*').send({
      token_endpoint: `${base}/oauth2/v2.0/token`,
      token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
      jwks_uri: `${base}/discovery/v2.0/keys`,
      response_modes_supported: ['query', 'fragment', 'form_post'],
      subject_types_supported: ['pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
      response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
      scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
      issuer: `${state.loginUrl}/${issuerTenant}/v2.0`,
      request_uri_parameter_supported: false,
      userinfo_endpoint: `${state.graphUrl.replace(/\/v1\.0$/, '')}/oidc/userinfo`,
      authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
      device_authorization_endpoint: `${base}/oauth2/v2.0/devicecode`,
      http_logout_supported: true,
      frontchannel_logout_supported: true,
      end_session_endpoint: `${base}/oauth2/v2.0/logout`,
      claims_supported: [
        'sub',
        'iss',
        'cloud_instance_name',
        'cloud_instance_host_name',
        'cloud_graph_host_name',
        'msgraph_host',
        'aud',
        'exp',
        'iat',
        'auth_time',
        'acr',
        'nonce',
        'preferred_username',
        'name',
        'tid',
        'ver',
        'at_hash',
        'c_hash',
        'email',
      ],
      kerberos_endpoint: `${base}/kerberos`,
      tenant_region_scope: 'EU',
      cloud_instance_name: 'microsoftonline.com',
      cloud_graph_host_name: 'graph.windows.net',
      msgraph_host: 'graph.microsoft.com',
      rbac_url: 'https://pas.windows.net',
    });
  });

  app.get('/:tenant/discovery/v2.0/keys', async (_request, reply) => reply.send(state.keys.jwks()));

  app.get('/common/discovery/instance', async (_request, reply) => {
    const host = new URL(state.loginUrl).host;
    return reply.send({
      tenant_discovery_endpoint: `${state.loginUrl}/{tenant}/v2.0/.well-known/openid-configuration`,
      'api-version': '1.1',
      metadata: [{ preferred_network: host, preferred_cache: host, aliases: [host] }],
    });
  });
}
