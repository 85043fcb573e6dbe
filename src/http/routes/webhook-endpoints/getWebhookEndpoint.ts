import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
import { errors, IdParams } from '../../schemas.ts';
import { Endpoint, endpointView } from './views.ts';

export default function getWebhookEndpoint(app: App) {
  app.get(
    '/v1/webhook_endpoints/:id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        tags: ['webhook_endpoints'],
        summary: 'A webhook endpoint (without its secret)',
        params: IdParams,
        response: { 200: Endpoint, ...errors(401, 404, 429) },
      },
    },
    async (req) => {
      const row = await app.ctx.repos.webhooks.getEndpoint(req.caller.accountId, req.params.id);
      if (!row) throw notFound('Webhook endpoint');
      return endpointView(row);
    },
  );
}
