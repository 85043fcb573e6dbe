import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors } from '../../schemas.ts';
import { ExportParams, ExportStatus } from './views.ts';

export default function cancelExport(app: App) {
  app.post(
    '/v1/collections/:id/exports/:export_id/cancel',
    {
      config: { audit: 'export.cancel' },
      schema: {
        operationId: 'cancelExport',
        tags: ['exports'],
        summary: 'Cancel a queued or running export',
        description:
          'The export ends `cancelled` at once; a worker writing it stops within seconds and keeps nothing. 409 when it has already ended.',
        params: ExportParams,
        response: {
          202: Type.Object({ export_id: Type.String(), status: ExportStatus }),
          ...errors(401, 404, 409, 429),
        },
      },
    },
    async (req, reply) => {
      const row = await app.ctx.services.exports.cancel(
        req.caller.accountId,
        req.params.id,
        req.params.export_id,
        (found) =>
          (req.auditInfo = { targetId: found.id, collectionId: found.collection_id, detail: { export_id: found.id } }),
      );
      return reply.code(202).send({ export_id: row.id, status: 'cancelled' as const });
    },
  );
}
