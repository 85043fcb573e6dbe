import type { App } from '../../../app.ts';
import { errors, IdParams, NoContent } from '../../schemas.ts';

export default function deleteWebhookEndpoint(app: App) {
  app.delete(
    '/v1/webhook_endpoints/:id',
    {
      config: { audit: 'webhook_endpoint.delete' },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags: ['webhook_endpoints'],
        summary: 'Delete a webhook endpoint',
        description: 'No further deliveries are attempted, pending ones included.',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 404, 429) },
      },
    },
    async (req, reply) => {
      await app.ctx.services.account.deleteWebhookEndpoint(req.caller.accountId, req.params.id);
      return reply.code(204).send(null);
    },
  );
}
