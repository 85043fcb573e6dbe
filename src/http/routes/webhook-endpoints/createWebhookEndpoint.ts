import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors } from '../../schemas.ts';
import { Endpoint, endpointView, EventTypeSchema } from './views.ts';

const DESCRIPTION = `
Registers a receiver for the caller's account. Each event is POSTed as JSON \`{id, type, created, data}\` with the
header \`Custody-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>\` (the secret's UTF-8
bytes are the key). Verify it on the raw body and reject old timestamps. A non-2xx answer or no answer within 10 s
is retried with backoff (10 s, 30 s, 2 min, 10 min, 30 min, then hourly) for up to 24 hours; every attempt is
recorded (\`GET /v1/webhook_endpoints/{id}/deliveries\`). The same event keeps its \`id\` across retries.

The URL must be http(s) on a public address: hosts that are or resolve to loopback, private or link-local
addresses are refused (checked again at every delivery) unless the server runs with \`WEBHOOKS_ALLOW_PRIVATE=true\`.
The \`secret\` is in this response only.`;

export default function createWebhookEndpoint(app: App) {
  app.post(
    '/v1/webhook_endpoints',
    {
      config: { audit: 'webhook_endpoint.create' },
      schema: {
        operationId: 'createWebhookEndpoint',
        tags: ['webhook_endpoints'],
        summary: 'Register a webhook endpoint',
        description: DESCRIPTION,
        body: Type.Object(
          {
            url: Type.String({ minLength: 1, maxLength: 2000, examples: ['https://hooks.example.com/custody'] }),
            events: Type.Array(EventTypeSchema, { minItems: 1, maxItems: 4, uniqueItems: true }),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            ...Endpoint.properties,
            secret: Type.String({ description: 'Signs every delivery. Shown only here.' }),
          }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (req, reply) => {
      const { row, secret } = await app.ctx.services.account.createWebhookEndpoint(req.caller.accountId, req.body);
      return reply.code(201).send({ ...endpointView(row), secret });
    },
  );
}
