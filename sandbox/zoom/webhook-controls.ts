import type { FastifyInstance } from 'fastify';
import type { ZoomWebhooks } from './webhooks.ts';

/**
 * Sandbox-only control routes (no real Zoom has them), for `custody sandbox` users and scripts:
 * POST /sandbox/webhooks {url, secret_token} subscribes an endpoint (validated first);
 * POST /sandbox/recordings {host} records a meeting now; POST /sandbox/chat_messages {from, to | channel_id, text}.
 */
export function registerWebhookControls(app: FastifyInstance, webhooks: ZoomWebhooks): void {
  const fail = (err: unknown) => ({ error: (err as Error).message });
  app.post('/sandbox/webhooks', async (req, reply) => {
    const b = (req.body ?? {}) as { url?: string; secret_token?: string };
    if (!b.url || !b.secret_token) return reply.code(400).send({ error: 'url and secret_token are required' });
    const validated = await webhooks.subscribe({ url: b.url, secretToken: b.secret_token });
    return reply.code(validated ? 200 : 400).send({ validated });
  });
  app.post('/sandbox/recordings', async (req, reply) => {
    const b = (req.body ?? {}) as { host?: string; topic?: string };
    try {
      const m = await webhooks.addRecording(b.host ?? '', { topic: b.topic });
      return reply.code(201).send({ uuid: m.uuid, host_id: m.host_id, topic: m.topic });
    } catch (err) {
      return reply.code(400).send(fail(err));
    }
  });
  app.post('/sandbox/chat_messages', async (req, reply) => {
    const b = (req.body ?? {}) as { from?: string; to?: string; channel_id?: string; text?: string };
    try {
      const m = await webhooks.addChatMessage({
        from: b.from ?? '',
        to: b.to,
        channelId: b.channel_id,
        text: b.text ?? '',
      });
      return reply.code(201).send({ id: m.id });
    } catch (err) {
      return reply.code(400).send(fail(err));
    }
  });
}
