import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { errors, PageQuery } from '../../schemas.ts';
import { Workspace, workspaceView } from './views.ts';

export default function listWorkspaces(app: App) {
  app.get(
    '/v1/workspaces',
    {
      schema: {
        operationId: 'listWorkspaces',
        tags: ['workspaces'],
        summary: "List the account's workspaces",
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(Workspace), cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (req) => {
      const page = await app.ctx.reads.account.workspaces(req.caller.accountId, {
        cursor: req.query.cursor,
        limit: req.query.limit ?? 50,
      });
      return { items: page.rows.map(workspaceView), cursor: page.cursor };
    },
  );
}
