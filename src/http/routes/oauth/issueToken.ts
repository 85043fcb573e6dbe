import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { OAuthError } from '../../../auth/service-tokens.ts';
import { sendTooMany } from '../../auth.ts';
import { errors } from '../../schemas.ts';
import { clientCredentials, isForm, type TokenForm } from './client-auth.ts';

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the access token expires.' }),
  refresh_token: Type.String({
    description: 'Single use: each refresh returns a new one and the old one stops working.',
  }),
});
const OAuthErrorBody = Type.Object(
  {
    error: Type.Union([
      Type.Literal('invalid_request'),
      Type.Literal('invalid_client'),
      Type.Literal('invalid_grant'),
      Type.Literal('unsupported_grant_type'),
    ]),
    error_description: Type.String(),
  },
  { description: 'RFC 6749 §5.2' },
);
const GRANTS = new Set(['client_credentials', 'refresh_token']);

export default function issueToken(app: App) {
  app.post(
    '/v1/oauth/token',
    {
      config: { auth: false, audit: 'token', oauthErrors: true, forms: true },
      // A body that is not a form still gets an RFC 6749 answer (invalid_request), not the generic error shape.
      attachValidation: true,
      schema: {
        operationId: 'issueToken',
        tags: ['auth'],
        summary: 'Obtain or refresh a service access token',
        description:
          'RFC 6749 token endpoint; its metadata (RFC 8414) is at `/.well-known/oauth-authorization-server`. The body is form-encoded ' +
          '(`application/x-www-form-urlencoded`, RFC 6749 §3.2): any other media type is refused with `invalid_request`. The client ' +
          'authenticates with HTTP Basic (`client_secret_basic`: `Authorization: Basic base64(client_id:client_secret)`, each ' +
          'form-urlencoded first) or with `client_id` and `client_secret` in the form (`client_secret_post`), not both. ' +
          '`grant_type=client_credentials` gives the first token pair; `grant_type=refresh_token` with `refresh_token` rotates it. ' +
          'Presenting an already-rotated refresh token revokes the whole token family. 30 requests/min per client id however it is ' +
          'sent, failed attempts included. Errors (RFC 6749 §5.2): `invalid_request` for a malformed request (no `grant_type`, ' +
          'no `refresh_token`, a repeated parameter, two authentication methods), `invalid_client` (401, with `WWW-Authenticate: Basic`), ' +
          '`invalid_grant`, `unsupported_grant_type`.',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({
          grant_type: Type.Optional(Type.String()),
          client_id: Type.Optional(Type.String()),
          client_secret: Type.Optional(Type.String()),
          refresh_token: Type.Optional(Type.String()),
        }),
        response: {
          200: TokenResponse,
          // A request refused before the route reads it (its framing or Host, edge.ts) gets the one error shape.
          400: Type.Union([OAuthErrorBody, Type.Ref('Error')]),
          401: OAuthErrorBody,
          ...errors(429),
        },
        // Other media types are invalid_request, not 415.
        'x-never-415': true,
        'x-response-headers': {
          200: {
            'Cache-Control': { description: '`no-store` (RFC 6749 §5.1)', required: true, schema: { type: 'string' } },
          },
          401: {
            'WWW-Authenticate': {
              description: '`Basic realm="custody"`: authenticate the client (RFC 6749 §5.2).',
              required: true,
              schema: { type: 'string' },
            },
          },
        },
      },
    },
    async (req, reply) => {
      const usable = !req.validationError && isForm(req);
      const form: TokenForm = usable ? (req.body ?? {}) : {};
      const client = clientCredentials(req, form);
      req.auditInfo = { clientId: client.clientId ?? null };
      // The budget is per client id and counts failures, so it is spent before anything is checked.
      const limit = await app.ctx.rateLimits.consume(
        'token',
        client.clientId ? `client:${client.clientId}` : `ip:${req.ip}`,
      );
      if (!limit.allowed) return sendTooMany(req, reply, limit.resetSeconds, app.ctx.config.docsUrl);
      reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
      reply
        .header('RateLimit-Limit', limit.limit)
        .header('RateLimit-Remaining', limit.remaining)
        .header('RateLimit-Reset', limit.resetSeconds);
      try {
        if (!usable)
          throw new OAuthError(
            400,
            'invalid_request',
            'The body must be form-encoded (application/x-www-form-urlencoded), each parameter once.',
          );
        if (client.error) throw client.error;
        const { grant_type, refresh_token } = form;
        if (!grant_type) throw new OAuthError(400, 'invalid_request', 'grant_type is required.');
        if (!GRANTS.has(grant_type))
          throw new OAuthError(
            400,
            'unsupported_grant_type',
            'grant_type must be client_credentials or refresh_token.',
          );
        if (grant_type === 'refresh_token' && !refresh_token)
          throw new OAuthError(400, 'invalid_request', 'refresh_token is required.');
        if (!client.clientId || !client.clientSecret)
          throw new OAuthError(
            401,
            'invalid_client',
            'Client authentication is required: HTTP Basic or client_id and client_secret.',
          );
        if (grant_type === 'client_credentials')
          return await app.ctx.serviceTokens.clientCredentials(client.clientId, client.clientSecret);
        return await app.ctx.serviceTokens.refresh(client.clientId, client.clientSecret, refresh_token!);
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        // RFC 6749 §5.2: a 401 names the scheme the client can authenticate with.
        if (err.status === 401) reply.header('WWW-Authenticate', 'Basic realm="custody"');
        return reply.code(err.status).send({ error: err.error, error_description: err.message });
      }
    },
  );
}
