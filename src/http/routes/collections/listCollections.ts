import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { errors, PageQuery } from '../../schemas.ts';
import { CollectionSummary, collectionSummary } from './views.ts';

const Query = Type.Object(
  {
    ...PageQuery.properties,
    workspace: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Only collections of this workspace (`onna_parent_id`).',
      }),
    ),
    type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'Only collections of this type (`conf`, `edrive`).' }),
    ),
    status: Type.Optional(
      Type.String({
        enum: ['created', 'pending', 'syncing', 'synced', 'failed', 'error'],
        description: 'Only collections in this `sync_status`.',
      }),
    ),
  },
  { additionalProperties: false },
);

export default function listCollections(app: App) {
  app.get(
    '/v1/collections',
    {
      schema: {
        operationId: 'listCollections',
        tags: ['collections'],
        summary: "List the account's collections",
        description:
          'Oldest first, paged with `cursor`; the filters combine (AND). An unknown workspace simply matches nothing.',
        querystring: Query,
        response: {
          200: Type.Object({ items: Type.Array(CollectionSummary), cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (req) => {
      const { workspace, type, status, cursor, limit } = req.query;
      const page = await app.ctx.reads.collections.list(req.caller.accountId, {
        workspaceId: workspace,
        type,
        status,
        cursor,
        limit: limit ?? 50,
      });
      return { items: page.rows.map(collectionSummary), cursor: page.cursor };
    },
  );
}
