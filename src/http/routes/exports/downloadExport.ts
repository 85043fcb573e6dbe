import type { App } from '../../../app.ts';
import { conflict, notFound } from '../../../domain/errors.ts';
import { ExportRepo } from '../../../store/exports.ts';
import { errors } from '../../schemas.ts';
import { CONDITIONAL_DESCRIPTION, ContentHeaders, contentResponses, sendContent } from '../items/content-reply.ts';
import { ownCollection } from '../items/own.ts';
import { ExportParams } from './views.ts';

export default function downloadExport(app: App) {
  const exports = new ExportRepo(app.ctx.db);
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
      const { collection } = await ownCollection(app.ctx, req.caller.accountId, req.params.id);
      const row = await exports.get(req.params.export_id);
      if (!row || row.collection_id !== collection.id) throw notFound('Export');
      req.auditInfo = {
        targetId: row.id,
        collectionId: collection.id,
        detail: { export_id: row.id, range: req.headers.range ? 'yes' : 'no' },
      };
      if (row.status !== 'succeeded' || !row.sha256)
        throw conflict('not_ready', `the export is "${row.status}": only a succeeded export has a package.`);
      const sha256 = row.sha256;
      const stat = await app.ctx.blobs.stat(sha256);
      if (!stat) throw notFound('Export package');
      return sendContent(req, reply, {
        sha256,
        size: stat.size,
        name: `custody-export-${row.id}.zip`,
        mime_type: 'application/zip',
        collected_datetime: row.finished_at ?? row.created_at,
        read: (range) => app.ctx.blobs.read(sha256, range),
      });
    },
  );
}
