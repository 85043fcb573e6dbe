import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { errors, IdParams } from '../../schemas.ts';

export default function startCollection(app: App) {
  app.post(
    '/v1/collections/:id/start',
    {
      config: { audit: 'collection.start' },
      schema: {
        operationId: 'startCollection',
        tags: ['collections'],
        summary: 'Start a sync that pulls exactly what the filters allow',
        description:
          'A start while a run is active returns that run (`created: false`); there is never a second active run. 409 when filters or paired credentials are missing, or when the filters need a permission the paired grant lacks (the message names it and the feature).',
        params: IdParams,
        response: {
          200: Type.Object({ run_id: Type.String(), created: Type.Boolean(), sync_status: Type.String() }),
          ...errors(401, 404, 409, 429),
        },
      },
    },
    async (req) => {
      const { runId, created, syncStatus } = await app.ctx.services.collections.start(
        req.caller.accountId,
        req.params.id,
      );
      return { run_id: runId, created, sync_status: syncStatus };
    },
  );
}
