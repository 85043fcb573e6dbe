import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { conflict, notFound } from '../../../domain/errors.ts';
import { RunRepo } from '../../../store/runs.ts';
import { errors } from '../../schemas.ts';
import { ownCollection } from './own.ts';

export default function cancelRun(app: App) {
  const runs = new RunRepo(app.ctx.db);
  app.post(
    '/v1/collections/:id/runs/:run_id/cancel',
    {
      config: { audit: 'run.cancel' },
      schema: {
        operationId: 'cancelRun',
        tags: ['items'],
        summary: 'Cancel a queued or running run',
        description:
          'The run ends `cancelled` at once (in the database, so every process executing its units stops before its next piece, within seconds); ' +
          'what it collected stays. Its reconciliation lists the units it never finished with outcome `not_reached`. ' +
          'The collection moves to `error` ("the sync was cancelled; start it again") and emits `collection.error`. 409 when the run has already ended.',
        params: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 64 }),
          run_id: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: {
          202: Type.Object({ run_id: Type.String(), status: Type.String() }),
          ...errors(401, 404, 409, 429),
        },
      },
    },
    async (req, reply) => {
      const { collection } = await ownCollection(app.ctx, req.caller.accountId, req.params.id);
      const run = await runs.get(req.params.run_id);
      if (!run || run.collection_id !== collection.id) throw notFound('Run');
      if (run.status !== 'queued' && run.status !== 'running')
        throw conflict('run_ended', `the run has already ended ("${run.status}").`);
      req.auditInfo = { targetId: collection.id, detail: { run_id: run.id } };
      await app.ctx.engine.cancel(collection.id);
      const after = await runs.get(run.id);
      return reply.code(202).send({ run_id: run.id, status: after?.status ?? 'cancelled' });
    },
  );
}
