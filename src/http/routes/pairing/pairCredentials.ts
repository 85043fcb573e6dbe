import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { errors, IdParams, NoContent } from '../../schemas.ts';

export default function pairCredentials(app: App) {
  app.post(
    '/v1/collections/:id/pair_credentials',
    {
      config: { audit: 'collection.pair' },
      schema: {
        operationId: 'pairCredentials',
        tags: ['pairing'],
        summary: "Bind a consent to the collection's wallet",
        description:
          '`auth_code` is the `code` the browser brought back to `redirect_to`. It is single use, expires 10 minutes after the consent, and works only in the ' +
          'account that started the authorization and for a collection of the same type; anything else answers 400. The grant is stored sealed in the ' +
          "collection's wallet, replacing any earlier one (so every collection using that wallet is re-paired). Pairing does not change `sync_status`: a " +
          'collection in `error` (for example after its grant was revoked) keeps that status and its `status_reason` until its next run is queued or started, ' +
          'which the new grant lets proceed. When the new grant lacks scopes the saved filters use, the collection view lists them in `missing_scopes` from then on ' +
          '(and, unless the collection is in `error`, `status_reason` says so) and the event stream gets `collection.scopes_missing` `{collection_id, missing_scopes: [{scope, feature}]}`.',
        params: IdParams,
        querystring: Type.Object(
          { auth_code: Type.String({ minLength: 1, maxLength: 512, description: 'The one-time pairing code.' }) },
          { additionalProperties: false },
        ),
        response: { 204: NoContent, ...errors(400, 401, 404, 429) },
      },
    },
    async (req, reply) => {
      await app.ctx.services.pairing.pair(req.caller.accountId, req.params.id, req.query.auth_code);
      return reply.code(204).send(null);
    },
  );
}
