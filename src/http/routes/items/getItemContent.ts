import type { App } from '../../../app.ts';
import { errors } from '../../schemas.ts';
import {
  CONDITIONAL_DESCRIPTION,
  ContentHeaders,
  contentResponses,
  downloadAudit,
  sendContent,
} from './content-reply.ts';
import { ItemParams } from './schemas.ts';

export default function getItemContent(app: App) {
  const download = contentResponses('The content, with the Content-Type recorded for the item.');
  app.get(
    '/v1/collections/:id/items/:item_id/content',
    {
      config: { audit: 'content.download' },
      schema: {
        operationId: 'getItemContent',
        tags: ['items'],
        summary: "Download an item's content",
        description: `Streams the stored bytes. ${CONDITIONAL_DESCRIPTION} 404 when the item has no content.`,
        params: ItemParams,
        headers: ContentHeaders,
        response: { ...download.response, ...errors(401, 404, 412, 416, 429) },
        'x-response-headers': download.headers,
      },
    },
    async (req, reply) => {
      const audit = (req.auditInfo = downloadAudit(req.params.id, req.params.item_id, req.headers.range));
      const content = await app.ctx.reads.items.content(req.caller.accountId, req.params.id, req.params.item_id);
      Object.assign(audit.detail, content.owner);
      return sendContent(req, reply, content);
    },
  );
}
