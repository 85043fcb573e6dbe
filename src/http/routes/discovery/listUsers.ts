import type { App } from '../../../app.ts';
import { Type, type Static } from 'typebox';
import { errors, IdParams } from '../../schemas.ts';
import { discover } from './discover.ts';
import { ConfUsersPage, DriveUsersPage, Limit } from './schemas.ts';

export default function listUsers(app: App) {
  app.get(
    '/v1/collections/:id/users',
    {
      schema: {
        operationId: 'listUsers',
        tags: ['discovery'],
        summary: 'List the users of the paired account (to choose whose data to collect)',
        description:
          '`conf`: `{results, next_page_token}` with `limit` and `offset`; users of every status are listed so that departed custodians can be selected. ' +
          '`edrive`: `{entries, limit, next_marker}` with `limit` and `marker`. Follow the cursor until it is null. 409 when the collection is not paired.',
        params: IdParams,
        querystring: Type.Object(
          {
            limit: Limit,
            offset: Type.Optional(
              Type.String({
                maxLength: 4096,
                description: '`conf`: the previous `next_page_token`; omit for the first page.',
              }),
            ),
            marker: Type.Optional(
              Type.String({
                maxLength: 4096,
                description: '`edrive`: the previous `next_marker`; omit for the first page.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Union([ConfUsersPage, DriveUsersPage]), ...errors(400, 401, 404, 409, 429, 502, 503) },
      },
    },
    async (req, reply) =>
      discover<Static<typeof ConfUsersPage> | Static<typeof DriveUsersPage>>(app.ctx, {
        accountId: req.caller.accountId,
        collectionId: req.params.id,
        kind: 'users',
        query: req.query,
        reply,
      }),
  );
}
