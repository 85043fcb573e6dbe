import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { badRequest } from '../../errors.ts';
import { errors } from '../../schemas.ts';
import { parseJson, rawBodies } from './raw-body.ts';

/** A batch of Graph change notifications (reference provider-events §2.5); every field is read leniently. */
const GRAPH_NOTIFICATIONS = {
  type: 'object',
  required: ['value'],
  properties: {
    value: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          subscriptionId: { type: 'string' },
          clientState: { type: 'string' },
          changeType: { type: 'string' },
          resource: { type: 'string' },
          lifecycleEvent: { type: 'string' },
          tenantId: { type: 'string' },
          subscriptionExpirationDateTime: { type: 'string' },
        },
      },
    },
  },
};

export default function receiveMicrosoftNotification(app: App) {
  app.register(async (scope) => {
    rawBodies(scope);
    scope.post(
      '/v1/webhooks/microsoft',
      {
        config: { auth: false, audit: false },
        schema: {
          operationId: 'receiveMicrosoftNotification',
          tags: ['webhooks'],
          summary: 'Microsoft Graph change notifications (called by Graph, not by clients)',
          description:
            'With `validationToken`: the subscription validation handshake, answered 200 `text/plain` with the token. Otherwise a batch ' +
            "`{value: [...]}` of drive notifications: each whose `subscriptionId` is one of Custody's subscriptions and whose `clientState` " +
            'matches is stored (a repeated delivery once); the others are ignored. Answered 202 before any work.',
          security: [],
          querystring: Type.Object({ validationToken: Type.Optional(Type.String({ maxLength: 4096 })) }),
          // Read raw (the validation request is an empty text/plain body): declared here, not validated by Fastify.
          'x-request-body': {
            required: false,
            content: {
              'application/json': { schema: GRAPH_NOTIFICATIONS },
              // reference provider-events §2.3: the handshake is text/plain with an empty body
              'text/plain': {
                schema: {
                  type: 'string',
                  maxLength: 0,
                  description: 'The validation request (with `validationToken`) has an empty body.',
                },
              },
            },
          },
          'x-never-415': true,
          'x-response-headers': {
            200: { 'X-Content-Type-Options': { description: '`nosniff`', required: true, schema: { type: 'string' } } },
          },
          response: {
            200: {
              description: 'The validation token, unaltered.',
              content: { 'text/plain': { schema: Type.String() } },
            },
            202: Type.Null({ description: 'Accepted.' }),
            ...errors(400, 413),
          },
        },
      },
      async (req, reply) => {
        const token = (req.query as { validationToken?: string }).validationToken;
        if (token !== undefined) {
          // Echoed as plain text, never as HTML (reference §2.3).
          return reply
            .code(200)
            .header('content-type', 'text/plain; charset=utf-8')
            .header('x-content-type-options', 'nosniff')
            .send(token);
        }
        const { ctx } = app;
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const body = parseJson(raw);
        if (body === undefined) throw badRequest('The body must be a JSON object {value: [...]}.', '/body');
        const { accepted, ignored } = await ctx.services.providerInbox.acceptGraphNotifications(body);
        if (ignored > 0)
          req.log.warn(
            { accepted, ignored },
            'Graph notifications with an unknown subscription or a wrong clientState ignored',
          );
        // no payload: a serialized null would go out as a JSON body of 4 bytes on a response declared without content
        return reply.code(202).send();
      },
    );
  });
}
