import type { App } from '../../../app.ts';
import { RunDetail } from '../../../read/view-schemas.ts';
import { errors } from '../../schemas.ts';
import { RunParams } from './schemas.ts';

export default function getRun(app: App) {
  app.get(
    '/v1/collections/:id/runs/:run_id',
    {
      schema: {
        operationId: 'getRun',
        tags: ['items'],
        summary: 'One run: its status, counters and errors, and the request budget its credential is held to',
        description:
          "As in the run history, plus `provider_budget`: the request rate learned for the collection's wallet from the provider's answers (shared by every worker and kept across runs), and `units`: each unit of a split run with its `last_progress_at`.",
        params: RunParams,
        response: { 200: RunDetail, ...errors(400, 401, 404, 429) },
      },
    },
    async (req) => {
      return app.ctx.reads.runs.get(req.caller.accountId, req.params.id, req.params.run_id);
    },
  );
}
