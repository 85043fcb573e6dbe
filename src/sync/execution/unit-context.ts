// What a unit job of a fanned-out run needs to collect (unit-job.ts): the collection checked again (a wallet can be
// unpaired, a connector missing on this worker), the filters the run was planned with, and the unit's own writer,
// ledger and connector context, fenced on the unit's lease. The run job opens the run's (run-context.ts).
import type { Connector, Logger, UnitSpec } from '../../connectors/types.ts';
import type { CollectionHead } from '../../store/collections.ts';
import type { Counters, RunRow } from '../../store/runs.ts';
import type { UnitRetryRow } from '../../store/units.ts';
import type { RunnerDeps } from '../deps.ts';
import { checkCollection, openCollectParts, type CollectParts, type RunFilters } from './collect-parts.ts';
import type { WriteFence } from './lease.ts';

/** Which unit is being collected, and on whose lease. */
export interface UnitTarget {
  owner: string;
  counters: Counters;
  checkpoint: unknown;
  /** this unit's key */
  scope: string[];
  /** the pieces on the collection's retry list this unit collects again */
  retries(r: UnitRetryRow): boolean;
  /** the reconciliation units of the run this unit continues */
  continues(unitKey: string): boolean;
  /** their keys */
  continuing: string[];
  /** the run's filters, read once per run (unit-memo.ts) */
  filters(): Promise<RunFilters>;
  /** reconciliation units another unit job of the run owns */
  foreign(unitKey: string): boolean;
  /** the unit's lease */
  fence: WriteFence;
  onProgress?: () => void;
  /** the run's units, and the claim of a piece two units reach */
  units: UnitSpec[];
  claim(key: string): Promise<boolean>;
}

export interface UnitContext extends CollectParts {
  connector: Connector;
}

/**
 * Throws NeedsUserActionError when a person must act first (no connector here, no paired wallet); else builds the
 * unit's ledger, writer and connector context (opening the provider session).
 */
export async function openUnitContext(
  deps: RunnerDeps,
  run: RunRow,
  collection: CollectionHead,
  target: UnitTarget,
  signal: AbortSignal,
  log: Logger,
): Promise<UnitContext> {
  // the filters the run was planned with: a PATCH during the run is for the next one
  const at = await checkCollection(deps, collection, target.filters);
  const parts = await openCollectParts(
    deps,
    run,
    at,
    {
      ...target,
      listingRunId: run.listing_run_id ?? run.id,
      continues: (u) => target.continues(u.unit_key),
    },
    signal,
    log,
  );
  Object.assign(parts.ctx, { scope: target.scope, units: target.units, claim: target.claim });
  return { ...parts, connector: at.connector };
}
