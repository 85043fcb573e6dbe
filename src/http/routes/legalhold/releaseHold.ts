import type { App } from '../../../app.ts';
import { conflict, notFound } from '../../../domain/errors.ts';
import { purgeUnheldTombstones } from '../../../sync/deletion/purge.ts';
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
      const { db, blobs, repos } = app.ctx;
      const hold = await repos.holds.get(req.caller.accountId, req.params.id);
      if (!hold) throw notFound('Legal hold');
      const released = () => conflict('hold_released', `legal hold ${hold.id} was released already.`);
      if (hold.released_at !== null) throw released();
      if (!(await repos.holds.release(req.caller.accountId, req.params.id, req.caller.clientId))) throw released();
      const covered = new Set(hold.collection_ids);
      if (hold.workspace_id) {
        for (const id of await repos.collections.idsByWorkspace(hold.workspace_id, req.caller.accountId))
          covered.add(id);
      }
      const now = () => new Date().toISOString();
      for (const collectionId of covered) {
        // The release stands even if a purge fails: the next auto run of the collection purges what is left.
        await purgeUnheldTombstones(db, blobs, collectionId, { now }).catch((err: unknown) =>
          req.log.warn(
            { err, collection_id: collectionId, hold_id: hold.id },
            'purging content released from a hold failed',
          ),
        );
      }
      return reply.code(204).send(null);
    },
  );
}
