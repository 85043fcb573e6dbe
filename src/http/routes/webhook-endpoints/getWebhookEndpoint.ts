import type { App } from '../../../app.ts';
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
      return endpointView(await app.ctx.reads.account.webhookEndpoint(req.caller.accountId, req.params.id));
    },
  );
}
