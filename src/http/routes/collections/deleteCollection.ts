import type { App } from '../../../app.ts';
import { errors, IdParams, NoContent } from '../../schemas.ts';

export default function deleteCollection(app: App) {
  app.delete(
    '/v1/collections/:id',
    {
      config: { audit: 'collection.delete' },
      schema: {
        operationId: 'deleteCollection',
        tags: ['collections'],
        summary: 'Delete a collection (permanent)',
        description:
          'Cancels a running sync, then removes filters, items, runs and every blob no other collection references. 409 while a legal hold covers it. From the moment the deletion starts the collection answers 404 everywhere (a second DELETE, its items, starting it, a new legal hold naming it); a server stopped midway finishes the deletion when it starts again.',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      await app.ctx.services.collections.delete(req.caller.accountId, req.params.id);
      return reply.code(204).send(null);
    },
  );
}
