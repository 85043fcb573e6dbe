import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
import { deleteCollections, finishWorkspaceDeletion } from '../../../sync/deletion/deletion.ts';
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
      const { accountId } = req.caller;
      const ws = await app.ctx.repos.workspaces.get(accountId, req.params.id);
      if (!ws) throw notFound('Workspace');
      const ids = await app.ctx.repos.collections.idsByWorkspace(ws.id);
      await deleteCollections(app.ctx, { accountId, collectionIds: ids, workspaceId: ws.id });
      await finishWorkspaceDeletion(
        { engine: app.ctx.engine, collections: app.ctx.repos.collections, workspaces: app.ctx.repos.workspaces },
        ws.id,
      );
      return reply.code(204).send(null);
    },
  );
}
