import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { conflict, notFound } from '../../../domain/errors.ts';
import { EventRepo } from '../../../store/events.ts';
import { ExportRepo } from '../../../store/exports.ts';
import { nowIso } from '../../../store/ids.ts';
import { errors } from '../../schemas.ts';
import { ownCollection } from '../items/own.ts';
import { ExportParams, ExportStatus } from './views.ts';

export default function cancelExport(app: App) {
  const exports = new ExportRepo(app.ctx.db);
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
      const { collection } = await ownCollection(app.ctx, req.caller.accountId, req.params.id);
      const row = await exports.get(req.params.export_id);
      if (!row || row.collection_id !== collection.id) throw notFound('Export');
      req.auditInfo = { targetId: row.id, collectionId: collection.id, detail: { export_id: row.id } };
      if (!(await exports.cancel(row.id, nowIso())))
        throw conflict('export_ended', `the export has already ended ("${row.status}").`);
      await new EventRepo(app.ctx.db).append({
        accountId: row.account_id,
        collectionId: collection.id,
        type: 'export.finished',
        data: { export_id: row.id, status: 'cancelled' },
      });
      await app.ctx.engine.exportCancelled(row.id);
      return reply.code(202).send({ export_id: row.id, status: 'cancelled' as const });
    },
  );
}
