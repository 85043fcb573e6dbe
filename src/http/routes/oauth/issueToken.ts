import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { OAuthError } from '../../../auth/service-tokens.ts';
import { sendTooMany } from '../../auth.ts';
import { errors } from '../../schemas.ts';

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the access token expires.' }),
  refresh_token: Type.String({ description: 'Single use: each refresh returns a new one and the old one stops working.' }),
});
const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() }, { description: 'RFC 6749 §5.2' });

export default function issueToken(app: App) {
  app.post(
    '/v1/oauth/token',
    {
      config: { auth: false, audit: 'token', oauthErrors: true },
      // A body that is not a form still gets an RFC 6749 answer (invalid_request), not the generic error shape.
      attachValidation: true,
      schema: {
        operationId: 'issueToken',
        tags: ['auth'],
        summary: 'Obtain or refresh a service access token',
        description:
          'Form-encoded. `grant_type=client_credentials` with `client_id` and `client_secret` gives the first token pair; `grant_type=refresh_token` with `client_id`, `client_secret` and `refresh_token` rotates it. Presenting an already-rotated refresh token revokes the whole token family. 30 requests/min per client_id, failed attempts included.',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({
          grant_type: Type.Optional(Type.String()),
          client_id: Type.Optional(Type.String()),
          client_secret: Type.Optional(Type.String()),
          refresh_token: Type.Optional(Type.String()),
        }),
        response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody, ...errors(429) },
      },
    },
    async (req, reply) => {
      const { grant_type, client_id, client_secret, refresh_token } = req.validationError ? {} : (req.body ?? {});
      // The budget is per client_id and counts failures, so it is spent before the secret is checked.
      const limit = await app.ctx.rateLimits.consume('token', client_id ? `client:${client_id}` : `ip:${req.ip}`);
      if (!limit.allowed) return sendTooMany(req, reply, limit.resetSeconds, app.ctx.config.docsUrl);
      reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
      reply.header('RateLimit-Limit', limit.limit).header('RateLimit-Remaining', limit.remaining).header('RateLimit-Reset', limit.resetSeconds);
      try {
        if (req.validationError) throw new OAuthError(400, 'invalid_request', 'The body must be form-encoded (application/x-www-form-urlencoded) with string fields.');
        if (!client_id || !client_secret) throw new OAuthError(401, 'invalid_client', 'client_id and client_secret are required.');
        if (grant_type === 'client_credentials') return await app.ctx.serviceTokens.clientCredentials(client_id, client_secret);
        if (grant_type === 'refresh_token') {
          if (!refresh_token) throw new OAuthError(400, 'invalid_request', 'refresh_token is required.');
          return await app.ctx.serviceTokens.refresh(client_id, client_secret, refresh_token);
        }
        throw new OAuthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials or refresh_token.');
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        if (err.status === 401) reply.header('WWW-Authenticate', 'Basic');
        return reply.code(err.status).send({ error: err.error, error_description: err.message });
      }
    },
  );
}
