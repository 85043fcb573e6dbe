import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { ExportRepo } from '../../../store/exports.ts';
import { errors, IdParams } from '../../schemas.ts';
import { ownCollection } from '../items/own.ts';
import { exportView, ExportView } from './views.ts';

export default function listExports(app: App) {
  const exports = new ExportRepo(app.ctx.db);
  app.get(
    '/v1/collections/:id/exports',
    {
      schema: {
        operationId: 'listExports',
        tags: ['exports'],
        summary: "The collection's exports, newest first (at most 200)",
        params: IdParams,
        response: { 200: Type.Object({ items: Type.Array(ExportView) }), ...errors(400, 401, 404, 429) },
      },
    },
    async (req) => {
      const { collection } = await ownCollection(app.ctx, req.caller.accountId, req.params.id);
      return { items: (await exports.listForCollection(collection.id)).map(exportView) };
    },
  );
}
