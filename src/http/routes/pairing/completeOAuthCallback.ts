import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { errors } from '../../schemas.ts';
import { appendQuery } from './flow.ts';

export default function completeOAuthCallback(app: App) {
  app.get(
    '/v1/oauth/callback/:type',
    {
      config: { auth: false },
      schema: {
        operationId: 'completeOAuthCallback',
        tags: ['pairing'],
        summary: 'Where the provider sends the browser back after consent (no bearer token)',
        description:
          'Verifies the state (a tampered, expired, replayed or missing state answers 400 and stores nothing), then exchanges the code or proves the ' +
          'consent and keeps the grant sealed as a pending pairing. Redirects the browser (302) to `redirect_to?code=<one-time pairing code>&state=<client state>`, ' +
          'or to `redirect_to?error=…&error_description=…&state=…` when the provider reports an error (checked before anything else it says) or refuses the code. ' +
          'A flow of two provider steps passes here twice: `edrive` first signs the administrator in (authorization code + PKCE, id_token verified), then ' +
          "sends the browser (302) on to admin consent for the administrator's own tenant with a fresh signed, single-use state; only a consent for that same " +
          'tenant, proven with an app-only token, creates the pairing code.',
        security: [],
        params: Type.Object({ type: Type.String({ minLength: 1, maxLength: 50 }) }),
        querystring: Type.Object(
          {
            state: Type.Optional(Type.String({ maxLength: 8192 })),
            code: Type.Optional(Type.String({ maxLength: 8192 })),
            error: Type.Optional(Type.String({ maxLength: 2048 })),
            error_description: Type.Optional(Type.String({ maxLength: 8192 })),
          },
          {
            additionalProperties: Type.String({ maxLength: 8192 }),
            description: 'As sent by the provider (`tenant`, `admin_consent`, `scope`… pass through).',
          },
        ),
        'x-response-headers': {
          302: {
            Location: {
              description: "`redirect_to` with the outcome, or the provider's next step.",
              required: true,
              schema: { type: 'string', format: 'uri' },
            },
          },
        },
        response: {
          302: Type.Null({
            description:
              "Back to `redirect_to` with `code` and `state`, or `error`, `error_description` and `state`; or on to the provider's next step.",
          }),
          ...errors(400),
          // Never a 2xx: every other answer (414, 500…) has the error shape too.
          default: Type.Ref('Error'),
        },
      },
    },
    async (req, reply) => {
      const outcome = await app.ctx.services.pairing.completeCallback(req.params.type, req.query, {
        log: req.log,
        verified: () => {
          reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer');
        },
      });
      if ('continueTo' in outcome) return reply.redirect(outcome.continueTo, 302);
      return reply.redirect(appendQuery(outcome.back.redirectTo, outcome.back.params), 302);
    },
  );
}
