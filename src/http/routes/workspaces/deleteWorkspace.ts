import type { App } from '../../../app.ts';
import { errors, IdParams, NoContent } from '../../schemas.ts';

export default function deleteWorkspace(app: App) {
  app.delete(
    '/v1/workspaces/:id',
    {
      config: { audit: 'workspace.delete' },
      schema: {
        operationId: 'deleteWorkspace',
        tags: ['workspaces'],
        summary: 'Delete a workspace and everything in it (permanent)',
        description:
          'Cancels running syncs, deletes every collection with its items, runs and unreferenced blobs. 409 while a legal hold covers it.',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      await app.ctx.services.account.deleteWorkspace(req.caller.accountId, req.params.id);
      return reply.code(204).send(null);
    },
  );
}
