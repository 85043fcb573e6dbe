import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
import { RUN_ERRORS_SHOWN } from '../../../read/queries.ts';
import { RunDetail } from '../../../read/view-schemas.ts';
import { providerBudgetView, runView } from '../../../read/views.ts';
import { RunRepo } from '../../../store/runs.ts';
import { UnitJobRepo } from '../../../store/unit-jobs.ts';
import { UnitRepo } from '../../../store/units.ts';
import { errors } from '../../schemas.ts';
import { ownCollection } from './own.ts';
import { RunParams } from './schemas.ts';

export default function getRun(app: App) {
  const runs = new RunRepo(app.ctx.db);
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
      const { collection } = await ownCollection(app.ctx, req.caller.accountId, req.params.id);
      const run = await runs.get(req.params.run_id);
      if (!run || run.collection_id !== collection.id) throw notFound('Run');
      const units = (await new UnitJobRepo(app.ctx.db).list(run.id)).map((u) => ({
        unit: u.unit_key,
        status: u.status,
        attempt: Number(u.attempt),
        last_progress_at: u.last_progress_at,
        error: u.error,
      }));
      const tally = (await new UnitRepo(app.ctx.db).tallies([run.id])).get(run.id);
      const view = {
        ...runView(run, await app.ctx.repos.runErrors.ofRun(run.id, RUN_ERRORS_SHOWN + 1), RUN_ERRORS_SHOWN, tally),
        units,
      };
      const connector = app.ctx.connectors.get(collection.type);
      const learned = await app.ctx.providers.learnedRate(connector ?? { type: collection.type }, collection.wallet_id);
      return learned ? { ...view, provider_budget: providerBudgetView(learned) } : view;
    },
  );
}
