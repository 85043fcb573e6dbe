import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
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
      if (!(await app.ctx.repos.webhooks.deleteEndpoint(req.caller.accountId, req.params.id, new Date().toISOString())))
        throw notFound('Webhook endpoint');
      return reply.code(204).send(null);
    },
  );
}
