import type { App } from '../../../app.ts';
import { errors } from '../../schemas.ts';
import { Item, ItemParams } from './schemas.ts';

export default function getItem(app: App) {
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
      return app.ctx.reads.items.get(req.caller.accountId, req.params.id, req.params.item_id);
    },
  );
}
