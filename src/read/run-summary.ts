// A run as every surface summarizes it (the collection's latest run, the runs list, the engine's latestRun).
import type { Static } from 'typebox';
import { countersOf, type RunHead } from '../store/runs.ts';
import type { Tally } from '../store/units.ts';
import { runCounters } from '../sync/runs/tally.ts';
import type { RunSummarySchema } from './view-schemas.ts';

/** `tally`: the run's reconciliation tally (UnitRepo.tallies), the one source of its counts (runCounters). */
export function runSummary(run: RunHead, tally: Tally | undefined): Static<typeof RunSummarySchema> {
  const { error_count, ...own } = countersOf(run);
  const counters = runCounters(own, tally);
  return {
    run_id: run.id,
    trigger: run.trigger,
    custodians: run.scope === null ? null : (JSON.parse(run.scope) as string[]),
    status: run.status,
    counters,
    started_datetime: run.started_at,
    finished_datetime: run.finished_at,
    error_count,
  };
}
