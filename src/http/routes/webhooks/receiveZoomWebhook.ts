import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { isNeededZoomEvent, storableZoomBody, zoomEventFacts } from '../../../connectors/zoom/webhook-events.ts';
import { AppError, badRequest } from '../../errors.ts';
import { checkZoomSignature, zoomHmacHex } from '../../../domain/webhook-signature.ts';
import { errors } from '../../schemas.ts';
import { parseJson, rawBodies } from './raw-body.ts';

export default function receiveZoomWebhook(app: App) {
  app.register(async (scope) => {
    rawBodies(scope);
    scope.post(
      '/v1/webhooks/zoom',
      {
        config: { auth: false, audit: false },
        schema: {
          operationId: 'receiveZoomWebhook',
          tags: ['webhooks'],
          summary: 'Zoom event subscriptions (called by Zoom, not by clients)',
          description:
            'Every request must carry `x-zm-signature` = `v0=` + hex HMAC-SHA256 of `v0:{x-zm-request-timestamp}:{raw body}` keyed with ' +
            'ZOOM_WEBHOOK_SECRET_TOKEN, and a timestamp at most 90 minutes old; otherwise 401 and nothing happens. `endpoint.url_validation` is ' +
            'answered with `{plainToken, encryptedToken}`. Recording, summary and chat events are stored (a repeated delivery once) and answered ' +
            '204 before any work; collections are updated afterwards by the workers. Other authentic events are answered 204 and ignored.',
          security: [],
          // Read raw (the signature covers the exact bytes): declared here, not validated by Fastify.
          'x-request-body': {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  description:
                    'A Zoom event (reference provider-events §1.2): `event`, `event_ts` (epoch ms) and `payload`.',
                  required: ['event', 'payload'],
                  properties: {
                    event: { type: 'string' },
                    event_ts: { type: 'integer' },
                    download_token: { type: 'string' },
                    payload: { type: 'object' },
                  },
                },
              },
            },
          },
          'x-never-415': true,
          response: {
            200: Type.Object(
              { plainToken: Type.String(), encryptedToken: Type.String() },
              { description: 'The endpoint validation answer.' },
            ),
            204: Type.Null({ description: 'Accepted.' }),
            ...errors(400, 401, 413),
          },
        },
      },
      async (req, reply) => {
        const { ctx } = app;
        const secret = ctx.config.events.zoomSecretToken;
        if (!secret)
          throw new AppError(401, 'Zoom webhooks are not configured on this server (ZOOM_WEBHOOK_SECRET_TOKEN).');
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const problem = checkZoomSignature({
          secret,
          timestamp: req.headers['x-zm-request-timestamp'],
          signature: req.headers['x-zm-signature'],
          rawBody: raw,
          nowMs: Date.now(),
        });
        if (problem) throw new AppError(401, `The webhook signature was refused: ${problem}.`);
        const body = parseJson(raw) as { event?: unknown; payload?: { plainToken?: unknown } } | undefined;
        if (!body || typeof body !== 'object' || typeof body.event !== 'string')
          throw badRequest('The body must be a JSON object with an `event`.', '/body/event');

        if (body.event === 'endpoint.url_validation') {
          const plainToken = body.payload?.plainToken;
          if (typeof plainToken !== 'string' || plainToken.length === 0 || plainToken.length > 512) {
            throw badRequest('payload.plainToken must be a non-empty string.', '/body/payload/plainToken');
          }
          return reply.code(200).send({ plainToken, encryptedToken: zoomHmacHex(secret, plainToken) });
        }
        const facts = isNeededZoomEvent(body.event) ? zoomEventFacts(body) : null;
        if (facts) {
          const isNew = await ctx.services.providerInbox.recordZoomEvent(facts, storableZoomBody(body));
          req.log.info({ zoom_event: facts.event, duplicate: !isNew }, 'Zoom event received');
        }
        return reply.code(204).send(null);
      },
    );
  });
}
