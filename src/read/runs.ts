import type { AppContext } from '../context.ts';
import { notFound } from '../domain/errors.ts';
import { RunRepo } from '../store/runs.ts';
import { UnitJobRepo } from '../store/unit-jobs.ts';
import { withLiveCounters } from '../store/run-counters.ts';
import { UnitRepo } from '../store/units.ts';
import type { CollectionReads } from './collections.ts';
import { RUN_ERRORS_SHOWN } from './queries.ts';
import { loadReconciliation } from './reconciliation-report.ts';
import { providerBudgetView, runView } from './views.ts';

/** One run of the caller's collection: 404 for the collection first, then for a run that is not one of its runs. */
export function createRunReads(
  deps: Pick<AppContext, 'db' | 'repos' | 'connectors' | 'providers'>,
  collections: CollectionReads,
) {
  const runs = new RunRepo(deps.db);

  const ownRun = async (accountId: string, collectionId: string, runId: string) => {
    const { collection } = await collections.own(accountId, collectionId);
    const found = await runs.get(runId);
    if (!found || found.collection_id !== collection.id) throw notFound('Run');
    const [run] = await withLiveCounters(deps.db, [found]);
    return { collection, run };
  };

  return {
    ownRun,

    /** The run's view with its units, and the request budget learned for the collection's wallet. */
    async get(accountId: string, collectionId: string, runId: string) {
      const { collection, run } = await ownRun(accountId, collectionId, runId);
      const units = (await new UnitJobRepo(deps.db).list(run.id)).map((u) => ({
        unit: u.unit_key,
        status: u.status,
        attempt: Number(u.attempt),
        last_progress_at: u.last_progress_at,
        error: u.error,
      }));
      const tally = (await new UnitRepo(deps.db).tallies([run.id])).get(run.id);
      const view = {
        ...runView(run, await deps.repos.runErrors.ofRun(run.id, RUN_ERRORS_SHOWN + 1), RUN_ERRORS_SHOWN, tally),
        units,
      };
      const connector = deps.connectors.get(collection.type);
      const learned = await deps.providers.learnedRate(connector ?? { type: collection.type }, collection.wallet_id);
      return learned ? { ...view, provider_budget: providerBudgetView(learned) } : view;
    },

    async reconciliation(accountId: string, collectionId: string, runId: string) {
      const { run } = await ownRun(accountId, collectionId, runId);
      return { run, report: await loadReconciliation(deps.db, run) };
    },

    /** The run's status now (after a cancel, say). */
    async statusOf(runId: string): Promise<string | undefined> {
      return (await runs.get(runId))?.status;
    },
  };
}

export type RunReads = ReturnType<typeof createRunReads>;
