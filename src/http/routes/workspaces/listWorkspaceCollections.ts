import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { errors, IdParams, PageQuery } from '../../schemas.ts';
import { CollectionSummary, collectionSummary } from '../collections/views.ts';

export default function listWorkspaceCollections(app: App) {
  app.get(
    '/v1/workspaces/:id/collections',
    {
      schema: {
        operationId: 'listWorkspaceCollections',
        tags: ['workspaces'],
        summary: 'List the collections of a workspace',
        params: IdParams,
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(CollectionSummary), cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (req) => {
      const page = await app.ctx.reads.collections.listOfWorkspace(req.caller.accountId, req.params.id, {
        cursor: req.query.cursor,
        limit: req.query.limit ?? 50,
      });
      return { items: page.rows.map(collectionSummary), cursor: page.cursor };
    },
  );
}
