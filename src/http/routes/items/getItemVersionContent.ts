import type { App } from '../../../app.ts';
import { errors } from '../../schemas.ts';
import {
  CONDITIONAL_DESCRIPTION,
  ContentHeaders,
  contentResponses,
  downloadAudit,
  sendContent,
} from './content-reply.ts';
import { VersionParams } from './schemas.ts';

export default function getItemVersionContent(app: App) {
  const download = contentResponses("The version's content, with the Content-Type recorded for it.");
  app.get(
    '/v1/collections/:id/items/:item_id/versions/:version_number/content',
    {
      config: { audit: 'content.download' },
      schema: {
        operationId: 'getItemVersionContent',
        tags: ['items'],
        summary: "Download a superseded version's content",
        description:
          `Like the item content download, for one of the versions GET …/versions lists. ${CONDITIONAL_DESCRIPTION} ` +
          '404 when there is no such version or its content is not kept (`content_available: false`).',
        params: VersionParams,
        headers: ContentHeaders,
        response: { ...download.response, ...errors(400, 401, 404, 412, 416, 429) },
        'x-response-headers': download.headers,
      },
    },
    async (req, reply) => {
      const { item_id, version_number } = req.params;
      const audit = (req.auditInfo = downloadAudit(req.params.id, item_id, req.headers.range, version_number));
      const content = await app.ctx.reads.items.versionContent(
        req.caller.accountId,
        req.params.id,
        item_id,
        version_number,
      );
      Object.assign(audit.detail, content.owner);
      return sendContent(req, reply, content);
    },
  );
}
