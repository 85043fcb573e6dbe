import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
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
      const ws = await app.ctx.repos.workspaces.get(req.caller.accountId, req.params.id);
      if (!ws) throw notFound('Workspace');
      return workspaceView(ws);
    },
  );
}
