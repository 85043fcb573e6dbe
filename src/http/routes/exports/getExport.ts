import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
import { ExportRepo } from '../../../store/exports.ts';
import { errors } from '../../schemas.ts';
import { ownCollection } from '../items/own.ts';
import { ExportParams, exportView, ExportView } from './views.ts';

export default function getExport(app: App) {
  const exports = new ExportRepo(app.ctx.db);
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
      const { collection } = await ownCollection(app.ctx, req.caller.accountId, req.params.id);
      const row = await exports.get(req.params.export_id);
      if (!row || row.collection_id !== collection.id) throw notFound('Export');
      return exportView(row);
    },
  );
}
