import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors, IdParams } from '../../schemas.ts';
import { exportView, ExportView } from './views.ts';

export default function listExports(app: App) {
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
      return { items: (await app.ctx.reads.exports.list(req.caller.accountId, req.params.id)).map(exportView) };
    },
  );
}
