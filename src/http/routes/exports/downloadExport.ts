import type { App } from '../../../app.ts';
import { errors } from '../../schemas.ts';
import { CONDITIONAL_DESCRIPTION, ContentHeaders, contentResponses, sendContent } from '../items/content-reply.ts';
import { ExportParams } from './views.ts';

export default function downloadExport(app: App) {
  const download = contentResponses('The package (application/zip).');
  app.get(
    '/v1/collections/:id/exports/:export_id/download',
    {
      config: { audit: 'export.download' },
      schema: {
        operationId: 'downloadExport',
        tags: ['exports'],
        summary: 'The package (application/zip)',
        description: `409 until the export has succeeded. ${CONDITIONAL_DESCRIPTION}`,
        params: ExportParams,
        headers: ContentHeaders,
        response: { ...download.response, ...errors(400, 401, 404, 409, 412, 416, 429) },
        'x-response-headers': download.headers,
      },
    },
    async (req, reply) => {
      const content = await app.ctx.reads.exports.package(
        req.caller.accountId,
        req.params.id,
        req.params.export_id,
        (row) =>
          (req.auditInfo = {
            targetId: row.id,
            collectionId: row.collection_id,
            detail: { export_id: row.id, range: req.headers.range ? 'yes' : 'no' },
          }),
      );
      return sendContent(req, reply, content);
    },
  );
}
