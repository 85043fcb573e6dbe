import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { badRequest } from '../../errors.ts';
import { errors, IdParams } from '../../schemas.ts';
import { openEventStream, SSE_HEARTBEAT, sseFrame } from '../../sse.ts';

const DESCRIPTION = `A server-sent events stream (\`text/event-stream\`) of the collection's runs, authenticated with the bearer
token like every route (read it with \`fetch\`; the browser's EventSource cannot send the header). Each event has
\`id:\` (increasing per collection), \`event:\` (its name) and its fields as JSON in \`data:\`:

- \`run.started\` \`{run_id, collection_id}\`
- \`run.progress\` \`{run_id, custodian, custodian_name, custodian_email, status, listed, collected, unchanged, excluded,
  not_present, failed, skipped, bytes}\`: cumulative for that custodian in that run, the same numbers as its
  reconciliation entry (a channel unit's \`custodian\` is the channel id, \`custodian_name\` its name, no e-mail);
  \`status\` \`done\` or \`failed\`: the unit is finished; \`not_reached\`: a cancel stopped it (sent before \`run.finished\`)
- \`run.finished\` \`{run_id, collection_id, status}\`: \`status\` is the run status
- \`collection.error\` \`{collection_id, reason}\`: the collection needs user action
- \`collection.scopes_missing\` \`{collection_id, missing_scopes: [{scope, feature}]}\`: right after \`pair_credentials\`,
  the new grant lacks scopes the saved filters use (the collection view's \`missing_scopes\` says the same)

A new connection first replays the latest run's events so far. With \`Last-Event-ID\` (the id of the last event
received) it replays what came after it, from the current and the previous run only, then goes on live. A comment
line (\`: heartbeat\`) is sent every 15 seconds (\`EVENT_STREAM_HEARTBEAT_MS\`). The stream reads the events every
process writes, so runs executing in a worker process show too; it ends when the client disconnects or the server
stops (reconnect with \`Last-Event-ID\`).`;

const PAGE = 500;

export default function streamEvents(app: App) {
  const { events } = app.ctx.reads;
  const { pollMs, heartbeatMs } = app.ctx.config.eventStream;
  const open = new Set<() => void>();
  // Open streams would keep the server from closing: end them first.
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });

  app.get(
    '/v1/collections/:id/events',
    {
      config: { stream: true },
      schema: {
        operationId: 'streamCollectionEvents',
        tags: ['collections'],
        summary: "Live progress: the collection's run events (server-sent events)",
        description: DESCRIPTION,
        params: IdParams,
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({
              pattern: '^\\d{1,15}$',
              description: 'The `id` of the last event received: replay from after it.',
            }),
          ),
        }),
        response: {
          200: {
            description: 'The event stream.',
            content: {
              'text/event-stream': {
                schema: Type.String({ description: 'Server-sent events: `id:`, `event:`, `data:` (JSON) blocks.' }),
              },
            },
          },
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (req, reply) => {
      const lastId = req.headers['last-event-id'];
      const opened = await events.open(
        req.caller.accountId,
        req.params.id,
        lastId === undefined ? undefined : Number(lastId),
      );
      const collection = { id: opened.collectionId };
      let after = opened.after;
      if (!Number.isSafeInteger(after)) throw badRequest('Last-Event-ID is not an event id.', '/headers/last-event-id');

      const stream = openEventStream(req, reply);
      let wake: (() => void) | undefined;
      let ended = false;
      const end = () => {
        ended = true;
        wake?.();
      };
      open.add(end);
      const heartbeat = setInterval(() => stream.write(SSE_HEARTBEAT), heartbeatMs);
      req.raw.on('close', end);
      try {
        while (!ended && !stream.closed()) {
          const batch = await events.after(collection.id, after, PAGE);
          for (const e of batch) {
            if (!stream.write(sseFrame(e.seq, e.type, e.data))) break;
            after = e.seq;
          }
          if (batch.length === PAGE) continue;
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, pollMs);
          });
        }
      } catch (err) {
        req.log.warn({ err_name: (err as Error)?.name, collection_id: collection.id }, 'event stream stopped');
      } finally {
        clearInterval(heartbeat);
        open.delete(end);
        reply.raw.end();
      }
    },
  );
}
