// What the run job needs (runner.ts): its collection checked (collect-parts.ts), with the filters the run collects
// under, and the run's own writer, ledger and connector context, fenced on the run's lease. With them the run plans
// its units (plan.ts) or, for a connector without a planner, collects its single unit in place. A unit job of a
// fanned-out run opens its own context (unit-context.ts).
import type { Logger } from '../../connectors/types.ts';
import type { Counters, RunRow } from '../../store/runs.ts';
import type { RunnerDeps } from '../deps.ts';
import { openCollectParts, type CollectParts, type RunCollection } from './collect-parts.ts';

export { checkCollection, type RunCollection } from './collect-parts.ts';

/** Where the run stands: the attempt's owner, and what a resumed attempt continues. */
export interface RunTarget {
  owner: string;
  listingRunId: string;
  counters: Counters;
  checkpoint: unknown;
  scope: string[] | null;
  onProgress?: () => void;
}

export type RunContext = CollectParts;

/** Builds the run's ledger, writer and connector context (opening the provider session). */
export async function openRunContext(
  deps: RunnerDeps,
  run: RunRow,
  at: RunCollection,
  target: RunTarget,
  signal: AbortSignal,
  log: Logger,
): Promise<RunContext> {
  const { scope } = target;
  const parts = await openCollectParts(
    deps,
    run,
    at,
    {
      ...target,
      retries: (r) => scope === null || scope.includes(r.unit_key),
      continues: () => true,
    },
    signal,
    log,
  );
  parts.ctx.scope = scope;
  return parts;
}
