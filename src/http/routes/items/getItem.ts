import type { App } from '../../../app.ts';
import { createSyncQueries } from '../../../read/queries.ts';
import { errors } from '../../schemas.ts';
import { ownCollection } from './own.ts';
import { Item, ItemParams } from './schemas.ts';

export default function getItem(app: App) {
  const queries = createSyncQueries(app.ctx);
  app.get(
    '/v1/collections/:id/items/:item_id',
    {
      schema: {
        operationId: 'getItem',
        tags: ['items'],
        summary: 'Read an item',
        params: ItemParams,
        response: { 200: Item, ...errors(401, 404, 429) },
      },
    },
    async (req) => {
      const { collection } = await ownCollection(app.ctx, req.caller.accountId, req.params.id);
      return queries.getItem(collection.id, req.params.item_id);
    },
  );
}
