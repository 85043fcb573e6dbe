import type { App } from '../../../app.ts';
import { Type, type Static } from 'typebox';
import { errors, IdParams } from '../../schemas.ts';
import { discover } from './discover.ts';
import { ChannelsPage, Limit } from './schemas.ts';

export default function listChannels(app: App) {
  app.get(
    '/v1/collections/:id/channels',
    {
      schema: {
        operationId: 'listChannels',
        tags: ['discovery'],
        summary: 'List the chat channels a user belongs to (`conf` only)',
        description:
          'Follow `next_page_token` (as `offset`) until it is null. 400 for other collection types, 404 for an unknown user, 409 when the collection is not paired.',
        params: IdParams,
        querystring: Type.Object(
          {
            user: Type.String({ minLength: 1, maxLength: 256, description: 'User id from the users list.' }),
            limit: Limit,
            offset: Type.Optional(
              Type.String({ maxLength: 4096, description: 'The previous `next_page_token`; omit for the first page.' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: ChannelsPage, ...errors(400, 401, 404, 409, 429, 502, 503) },
      },
    },
    async (req, reply) =>
      discover<Static<typeof ChannelsPage>>(app.ctx, {
        accountId: req.caller.accountId,
        collectionId: req.params.id,
        kind: 'channels',
        query: req.query,
        reply,
      }),
  );
}
