import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { OAuthStateError } from '../../../auth/oauth-state.ts';
import {
  isOAuthContinuation,
  ProviderAuthError,
  type Grant,
  type OAuthContinuation,
} from '../../../connectors/types.ts';
import { badRequest } from '../../errors.ts';
import { randomToken, sha256Hex } from '../../../domain/seal.ts';
import { ProviderError } from '../../../provider/provider-error.ts';
import { errors } from '../../schemas.ts';
import { appendQuery, callbackUri, PAIRING_TTL_MS, pairingsOf, statesOf } from './flow.ts';

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
      const { ctx } = app;
      const { type } = req.params;
      const query = req.query as Record<string, string | undefined>;
      const connector = ctx.connectors.get(type);
      if (!connector) throw badRequest(`type must be one of ${ctx.connectors.types().join(', ')}.`, '/params/type');

      let bound;
      try {
        bound = await statesOf(ctx).consume(query.state, type);
      } catch (err) {
        if (err instanceof OAuthStateError) throw badRequest(err.message, '/querystring/state');
        throw err;
      }
      reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer');
      const back = (params: Record<string, string | undefined>) =>
        reply.redirect(appendQuery(bound.redirectTo, { ...params, state: bound.clientState }), 302);

      // Microsoft's admin-consent error redirect also carries admin_consent=True: an error wins over anything else.
      if (query.error !== undefined) {
        return back({ error: errorCode(query.error), error_description: clip(query.error_description) });
      }

      let result: Grant | OAuthContinuation;
      try {
        result = await connector.oauth.completeCallback({
          query,
          redirectUri: callbackUri(ctx, type),
          codeVerifier: bound.codeVerifier,
          ...(bound.carry !== undefined && { carried: bound.carry }),
        });
      } catch (err) {
        if (err instanceof ProviderAuthError)
          return back({ error: errorCode(err.error), error_description: clip(err.description) });
        // ProviderError messages are built to be safe (no query strings, tokens redacted); other messages may not be.
        const safe =
          err instanceof ProviderError
            ? { err_message: err.message, status: err.status, provider_code: err.providerCode }
            : {};
        req.log.error({ type, err_name: (err as Error)?.name, ...safe }, 'completing a provider authorization failed');
        return back({
          error: 'server_error',
          error_description: 'The provider could not complete the authorization. Try again later.',
        });
      }

      if (isOAuthContinuation(result)) {
        // The next step gets its own state: the one just verified is burned, and the new one binds the same
        // account, redirect_to and client state plus what this step established.
        const next = await statesOf(ctx).issue({
          accountId: bound.accountId,
          type,
          redirectTo: bound.redirectTo,
          clientState: bound.clientState,
          carry: result.carry,
        });
        return reply.redirect(result.continueTo(next.state), 302);
      }
      const grant = result;

      const code = randomToken(32);
      const now = new Date();
      await pairingsOf(ctx).createPairing({
        codeHash: sha256Hex(code),
        accountId: bound.accountId,
        type,
        sealedGrant: ctx.sealer.seal(grant),
        expiresAt: new Date(now.getTime() + PAIRING_TTL_MS).toISOString(),
        now: now.toISOString(),
      });
      return back({ code });
    },
  );
}

/** The provider's error code is relayed as a plain token; anything else in it is dropped. */
function errorCode(value: string): string {
  return value.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 100) || 'access_denied';
}

function clip(value: string | undefined): string | undefined {
  return value ? value.slice(0, 500) : undefined;
}
