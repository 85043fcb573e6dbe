import type { App } from '../../../app.ts';
import { errors, IdParams } from '../../schemas.ts';
import { Workspace, workspaceView } from './views.ts';

export default function getWorkspace(app: App) {
  app.get(
    '/v1/workspaces/:id',
    {
      schema: {
        operationId: 'getWorkspace',
        tags: ['workspaces'],
        summary: 'Read a workspace',
        params: IdParams,
        response: { 200: Workspace, ...errors(401, 404, 429) },
      },
    },
    async (req) => {
      return workspaceView(await app.ctx.reads.account.workspace(req.caller.accountId, req.params.id));
    },
  );
}
