import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { AppError, conflict } from '../../../domain/errors.ts';
import { nextStatus, type SyncStatus } from '../../../domain/sync-state.ts';
import { errors, IdParams, NoContent } from '../../schemas.ts';
import { loadCollection } from './load.ts';

export default function patchCollection(app: App) {
  app.patch(
    '/v1/collections/:id',
    {
      config: { audit: 'collection.update' },
      schema: {
        tags: ['collections'],
        summary: 'Save sync filters, the sync type, and/or queue a sync',
        description:
          '`sync_filters` replaces the previous value entirely (no merge). `sync_status` accepts only `pending`: it queues a run and needs filters (saved in this request or before). 422 with a JSON pointer when the filters break the rules of the collection type.',
        params: IdParams,
        body: Type.Object(
          {
            sync_status: Type.Optional(Type.Literal('pending', { description: 'Clients may only write `pending`.' })),
            // Any JSON here: the collection type's rules decide (422 with a pointer), not a generic 400.
            sync_filters: Type.Optional(Type.Unknown({ description: 'The whole filter object of the collection type (see the spec).' })),
            type_sync: Type.Optional(
              Type.Union([Type.Literal('one'), Type.Literal('arch'), Type.Literal('auto')], {
                description:
                  'Superseded versions kept while the collection was `arch` remain (with their content) when the type changes, until the collection is deleted; versions kept only because of a legal hold are purged once no hold covers a collection that is not `arch`.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 204: NoContent, ...errors(400, 401, 404, 409, 422, 429) },
      },
    },
    async (req, reply) => {
      const { collection, connector } = await loadCollection(app.ctx, req.caller.accountId, req.params.id);
      const { sync_filters, type_sync, sync_status } = req.body;
      if (sync_filters !== undefined) {
        const issues = connector.validateFilters(sync_filters);
        if (issues.length > 0) {
          const first = issues[0]!;
          const more = issues.length > 1 ? ` (${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
          throw new AppError(422, `sync_filters${first.pointer}: ${first.message}${more}`, `/body/sync_filters${first.pointer}`);
        }
      }
      if (sync_status === 'pending') {
        if (sync_filters === undefined && collection.sync_filters === null) {
          throw conflict('sync_status "pending" needs sync_filters: send them in this request or save them first.', '/body/sync_filters');
        }
        if (!nextStatus(collection.sync_status as SyncStatus, 'queue')) {
          throw conflict(`a run is active (sync_status "${collection.sync_status}"); wait for it to finish before queueing another.`, '/body/sync_status');
        }
      }
      await app.ctx.repos.collections.update(collection.id, {
        ...(sync_filters !== undefined && { sync_filters: JSON.stringify(sync_filters), filters_updated_at: new Date().toISOString() }),
        ...(type_sync !== undefined && { type_sync }),
      });
      if (sync_status === 'pending') await app.ctx.engine.queue(collection.id);
      return reply.code(204).send(null);
    },
  );
}
