import type { App } from '../../../app.ts';
import { Type } from 'typebox';

const Metadata = Type.Object(
  {
    issuer: Type.String({ description: 'PUBLIC_URL without a trailing slash.' }),
    token_endpoint: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String(), { description: 'Empty: there is no authorization endpoint.' }),
    service_documentation: Type.String(),
  },
  { description: 'RFC 8414 §2 authorization server metadata.' },
);

/**
 * RFC 8414 §3: the metadata of an issuer with a path (PUBLIC_URL behind a reverse proxy at a prefix) lives at
 * `/.well-known/oauth-authorization-server<path>` on the host. The proxy may hand that URL on as it is, or hand on
 * `<path>/.well-known/oauth-authorization-server` with the prefix stripped: both reach the same document.
 */
export function metadataPaths(publicUrl: string): string[] {
  const issuerPath = new URL(publicUrl).pathname.replace(/\/+$/, '');
  const base = '/.well-known/oauth-authorization-server';
  return issuerPath ? [base, `${base}${issuerPath}`] : [base];
}

export default function getAuthorizationServerMetadata(app: App) {
  const issuer = app.ctx.config.publicUrl;
  const document = {
    issuer,
    token_endpoint: `${issuer}/v1/oauth/token`,
    grant_types_supported: ['client_credentials', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    response_types_supported: [],
    service_documentation: `${issuer}/docs`,
  };
  metadataPaths(issuer).forEach((url, i) =>
    app.get(
      url,
      {
        config: { auth: false },
        schema: {
          // one operation in the document; the path form for an issuer with a path is the same answer
          hide: i > 0,
          operationId: 'getAuthorizationServerMetadata',
          tags: ['auth'],
          summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
          description: 'Where standard OAuth clients discover the token endpoint and how to authenticate to it.',
          security: [],
          response: { 200: Metadata },
        },
      },
      async (_req, reply) => reply.header('Cache-Control', 'public, max-age=3600').send(document),
    ),
  );
}
