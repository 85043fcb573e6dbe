import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors, IdParams, PageQuery } from '../../schemas.ts';
import { Run } from './schemas.ts';

export default function listRuns(app: App) {
  app.get(
    '/v1/collections/:id/runs',
    {
      schema: {
        operationId: 'listRuns',
        tags: ['items'],
        summary: "A collection's run history",
        description: 'Newest first, with counters (live while a run is active) and the errors each run recorded.',
        params: IdParams,
        querystring: PageQuery,
        response: {
          200: Type.Object({ runs: Type.Array(Run), cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (req) => {
      return app.ctx.reads.items.runs(req.caller.accountId, req.params.id, {
        cursor: req.query.cursor,
        limit: req.query.limit ?? 50,
      });
    },
  );
}
