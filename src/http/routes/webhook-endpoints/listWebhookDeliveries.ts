import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors, IdParams, PageQuery } from '../../schemas.ts';
import { pageLimit } from './views.ts';
import { Delivery, deliveryView } from './views.ts';

export default function listWebhookDeliveries(app: App) {
  app.get(
    '/v1/webhook_endpoints/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['webhook_endpoints'],
        summary: "An endpoint's deliveries, oldest event first, with the outcome of their last attempt",
        params: IdParams,
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(Delivery), cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (req) => {
      const page = await app.ctx.reads.account.webhookDeliveries(req.caller.accountId, req.params.id, {
        cursor: req.query.cursor,
        limit: pageLimit(req.query.limit),
      });
      return { items: page.rows.map(deliveryView), cursor: page.cursor };
    },
  );
}
