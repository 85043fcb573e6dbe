import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors } from '../../schemas.ts';

export default function cancelRun(app: App) {
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
      const { runId, status } = await app.ctx.services.collections.cancelRun(
        req.caller.accountId,
        req.params.id,
        req.params.run_id,
        (run) => (req.auditInfo = { targetId: run.collection_id, detail: { run_id: run.id } }),
      );
      return reply.code(202).send({ run_id: runId, status });
    },
  );
}
