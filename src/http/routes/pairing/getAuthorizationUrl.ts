import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { errors } from '../../schemas.ts';

/** The scope sets each connector requests, by `scopes_type`, written into the route's documentation. */
function scopeSetsDoc(app: App): string {
  const lines = app.ctx.connectors
    .types()
    .flatMap((type) =>
      Object.entries(app.ctx.connectors.get(type)!.oauth.scopes).map(
        ([set, scopes]) => `- \`${type}\` / \`${set}\`: ${scopes.map((s) => `\`${s}\``).join(', ')}`,
      ),
    );
  return `\n\nScope sets (\`scopes_type\`; omitted = \`default\`). The \`preservation\` set is for legal-hold flows: it adds what a preservation matter needs (Zoom: account-wide meeting summaries and Team Chat legal-hold reads); holds themselves live under \`/v1/legalhold/\`.\n${lines.join('\n')}`;
}

export default function getAuthorizationUrl(app: App) {
  app.get(
    '/v1/collections/authorization_url/:type',
    {
      schema: {
        operationId: 'getAuthorizationUrl',
        tags: ['pairing'],
        summary: 'Start pairing: the provider authorization URL for a collection type',
        description:
          'Answers 302 to the provider (`conf`) or 200 `{authorization_url}` (`edrive`); with `Accept: application/json` (that type alone) it answers 200 `{authorization_url}` for every type (a web page cannot read a cross-origin redirect). `redirect_to` must be on the account allowlist (exact match) or be the web console, `<PUBLIC_URL>/console/` (when PUBLIC_URL is a loopback address, under any loopback name: `localhost`, `127.0.0.1`, `[::1]`). ' +
          'The `state` sent to the provider is signed, expires after 10 minutes, is single use and binds the account, the type, `redirect_to` and the client `state`. ' +
          'After consent the browser comes back to `redirect_to?code=<one-time pairing code>&state=<client state>` (or `?error=…&error_description=…&state=…`); ' +
          'pass the code to `pair_credentials` within 10 minutes.' +
          scopeSetsDoc(app),
        params: Type.Object({ type: Type.String({ minLength: 1, maxLength: 50, examples: ['conf', 'edrive'] }) }),
        querystring: Type.Object(
          {
            redirect_to: Type.String({
              minLength: 1,
              maxLength: 2048,
              description: 'Where the browser is sent back; must be on the account allowlist.',
            }),
            state: Type.Optional(
              Type.String({
                maxLength: 1024,
                description: 'Opaque client value, returned unchanged on the redirect to `redirect_to`.',
              }),
            ),
            scopes_type: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 50,
                description: 'A scope set of the connector, e.g. `preservation` for `conf` (legal-hold flows).',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        'x-response-headers': {
          302: {
            Location: {
              description: "The provider's authorization URL.",
              required: true,
              schema: { type: 'string', format: 'uri' },
            },
          },
        },
        response: {
          200: Type.Object({
            authorization_url: Type.String({
              description: 'Open it in the browser of the user (or admin) who consents.',
            }),
          }),
          302: Type.Null({ description: 'Redirect to the provider; `Location` is the authorization URL.' }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (req, reply) => {
      const { redirect_to, state, scopes_type } = req.query;
      const { url, redirect } = await app.ctx.services.pairing.authorize(req.caller.accountId, req.params.type, {
        redirectTo: redirect_to,
        state,
        scopesType: scopes_type,
      });
      reply.header('Cache-Control', 'no-store').header('Vary', 'Accept');
      const wantsJson = acceptsOnlyJson(req.headers.accept);
      if (redirect && !wantsJson) return reply.redirect(url, 302);
      return { authorization_url: url };
    },
  );
}

/**
 * A page asking for the URL as JSON says `Accept: application/json` and nothing else; a generic client default that
 * also takes anything (axios: `application/json, text/plain, *\/*`) gets the redirect the spec describes.
 */
function acceptsOnlyJson(accept: string | undefined): boolean {
  const types = (accept ?? '')
    .split(',')
    .map((t) => t.split(';')[0].trim().toLowerCase())
    .filter(Boolean);
  return types.length > 0 && types.every((t) => t === 'application/json');
}
