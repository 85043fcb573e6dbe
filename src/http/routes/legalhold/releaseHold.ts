import type { App } from '../../../app.ts';
import { errors, IdParams, NoContent } from '../../schemas.ts';

export default function releaseHold(app: App) {
  app.delete(
    '/v1/legalhold/holds/:id',
    {
      config: { rateLimit: 'none', audit: 'legalhold.release' },
      schema: {
        operationId: 'releaseHold',
        tags: ['legalhold'],
        summary: 'Release a legal hold',
        description:
          'Deletion of what it covered is allowed again (unless another hold covers it). Content an `auto` collection kept only because of this hold (items the source deleted) is purged now, unless another hold still covers the collection. The hold stays readable as `status: released` with `released_at` and `released_by`; releasing it again answers 409 (`00409_hold_released`).',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 404, 409) },
      },
    },
    async (req, reply) => {
      const holdId = req.params.id;
      await app.ctx.services.holds.release(req.caller.accountId, req.caller.clientId, holdId, (err, collectionId) =>
        req.log.warn(
          { err, collection_id: collectionId, hold_id: holdId },
          'purging content released from a hold failed',
        ),
      );
      return reply.code(204).send(null);
    },
  );
}
