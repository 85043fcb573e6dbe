import type { App } from '../../../app.ts';
import { Type, type Static } from 'typebox';
import { errors, IdParams } from '../../schemas.ts';
import { discover } from './discover.ts';
import { FoldersPage } from './schemas.ts';

export default function listFolders(app: App) {
  app.get(
    '/v1/collections/:id/folders',
    {
      schema: {
        operationId: 'listFolders',
        tags: ['discovery'],
        summary: "Browse a user's drive folders (`edrive` only)",
        description:
          'The folders directly under `parent_id` (default: the drive root), so a client can walk the tree. Follow `_next` (as `cursor`) until it is null. ' +
          '400 for other collection types, 404 for an unknown user or one without a provisioned drive, 409 when the collection is not paired.',
        params: IdParams,
        querystring: Type.Object(
          {
            user_id: Type.String({ minLength: 1, maxLength: 256, description: 'User id from the users list.' }),
            parent_id: Type.Optional(
              Type.String({ minLength: 1, maxLength: 512, description: 'A folder id; omit for the drive root.' }),
            ),
            cursor: Type.Optional(
              Type.String({ maxLength: 4096, description: 'The previous `_next`; omit for the first page.' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: FoldersPage, ...errors(400, 401, 404, 409, 429, 502, 503) },
      },
    },
    async (req, reply) =>
      discover<Static<typeof FoldersPage>>(app.ctx, {
        accountId: req.caller.accountId,
        collectionId: req.params.id,
        kind: 'folders',
        query: req.query,
        reply,
      }),
  );
}
