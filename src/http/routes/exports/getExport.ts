import type { App } from '../../../app.ts';
import { errors } from '../../schemas.ts';
import { ExportParams, exportView, ExportView } from './views.ts';

export default function getExport(app: App) {
  app.get(
    '/v1/collections/:id/exports/:export_id',
    {
      schema: {
        operationId: 'getExport',
        tags: ['exports'],
        summary: 'One export: status, counts, size and SHA-256 of its package',
        params: ExportParams,
        response: { 200: ExportView, ...errors(400, 401, 404, 429) },
      },
    },
    async (req) => {
      return exportView(await app.ctx.reads.exports.get(req.caller.accountId, req.params.id, req.params.export_id));
    },
  );
}
