// What a unit job of a fanned-out run needs to collect (unit-job.ts): the collection checked again (a wallet can be
// unpaired, a connector missing on this worker), the filters the run was planned with, and the unit's own writer,
// ledger and connector context, fenced on the unit's lease. The run job opens the run's (run-context.ts).
import { type CollectContext, type Connector, type Logger, type UnitSpec } from '../../connectors/types.ts';
import { actionBeforeRun } from '../../domain/run-failures.ts';
import { filtersFingerprint } from '../../provider/fingerprint.ts';
import type { CollectionRow } from '../../store/collections.ts';
import { CursorRepo } from '../../store/items.ts';
import type { Counters, RunRow } from '../../store/runs.ts';
import { UnitRepo, type UnitRetryRow } from '../../store/units.ts';
import { WalletRepo } from '../../store/wallets.ts';
import type { RunnerDeps } from '../deps.ts';
import { UnitLedger } from './ledger.ts';
import { ItemWriter } from './item-writer.ts';
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
  /** reconciliation units another unit job of the run owns */
  foreign(unitKey: string): boolean;
  /** the unit's lease */
  fence: WriteFence;
  onProgress?: () => void;
  /** the run's units, and the claim of a piece two units reach */
  units: UnitSpec[];
  claim(key: string): Promise<boolean>;
}

export interface UnitContext {
  connector: Connector;
  session: ItemWriter;
  ledger: UnitLedger;
  ctx: CollectContext;
  retries: UnitRetryRow[];
}

/**
 * Throws NeedsUserActionError when a person must act first (no connector here, no paired wallet); else builds the
 * unit's ledger, writer and connector context (opening the provider session).
 */
export async function openUnitContext(
  deps: RunnerDeps,
  run: RunRow,
  collection: CollectionRow,
  target: UnitTarget,
  signal: AbortSignal,
  log: Logger,
): Promise<UnitContext> {
  const found = deps.connectors.get(collection.type);
  const wallet = await new WalletRepo(deps.db).getById(collection.wallet_id);
  const refusal = actionBeforeRun(collection, { connector: found !== undefined, grant: !!wallet?.sealed_grant });
  if (refusal) throw refusal;
  const connector = found!;
  // the filters the run was planned with: a PATCH during the run is for the next one
  const filters = JSON.parse(run.sync_filters ?? collection.sync_filters!) as unknown;
  const stored = await new CursorRepo(deps.db).get(collection.id);
  const cursors = stored && stored.fingerprint === filtersFingerprint(filters) ? stored.value : null;
  const units = new UnitRepo(deps.db);
  const retries = (await units.retries(collection.id)).filter((r) => target.retries(r));
  const ledger = new UnitLedger(
    { runId: run.id, collectionId: collection.id, accountId: collection.account_id },
    deps.clock,
    (await units.list(run.id)).filter((u) => target.continues(u.unit_key)),
    new Set(retries.map((r) => `${r.kind}\u0000${r.source_id}`)),
    target.foreign,
  );
  const session = new ItemWriter(deps, {
    ledger,
    runId: run.id,
    listingRunId: run.listing_run_id ?? run.id,
    owner: target.owner,
    collectionId: collection.id,
    accountId: collection.account_id,
    typeSync: collection.type_sync,
    type: collection.type,
    kinds: connector.kinds,
    counters: target.counters,
    signal,
    fence: target.fence,
    onProgress: target.onProgress,
  });
  const ctx: CollectContext = {
    ...(await deps.sessions.open(collection, connector, {
      signal,
      log,
      now: deps.clock,
      onProgress: target.onProgress,
    })),
    collectionId: collection.id,
    filters,
    checkpoint: target.checkpoint,
    cursors,
    scope: target.scope,
    units: target.units,
    claim: target.claim,
  };
  return { connector, session, ledger, ctx, retries };
}
