import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors, PageQuery } from '../../schemas.ts';
import { pageLimit } from './views.ts';
import { Endpoint, endpointView } from './views.ts';

export default function listWebhookEndpoints(app: App) {
  app.get(
    '/v1/webhook_endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags: ['webhook_endpoints'],
        summary: "List the account's webhook endpoints",
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(Endpoint), cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (req) => {
      const page = await app.ctx.reads.account.webhookEndpoints(req.caller.accountId, {
        cursor: req.query.cursor,
        limit: pageLimit(req.query.limit),
      });
      return { items: page.rows.map(endpointView), cursor: page.cursor };
    },
  );
}
