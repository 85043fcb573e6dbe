// What a unit needs to collect, built once for both: the run's own unit (collected in place on the run's lease by
// runner.ts, which also plans from it) and a unit job of a fanned-out run (unit-job.ts).
import type { BlobStore } from '../../blobs/types.ts';
import { type CollectContext, type Connector, type Logger, type UnitSpec } from '../../connectors/types.ts';
import type { RunBackoff } from '../../domain/run-outcome.ts';
import { filtersFingerprint } from '../../provider/fingerprint.ts';
import type { DocumentReader } from '../../search/index.ts';
import type { CollectionRow } from '../../store/collections.ts';
import type { Database } from '../../store/db.ts';
import { CursorRepo } from '../../store/items.ts';
import type { Counters, RunRow } from '../../store/runs.ts';
import { UnitRepo, type UnitRetryRow } from '../../store/units.ts';
import { WalletRepo } from '../../store/wallets.ts';
import { UnitLedger } from './ledger.ts';
import type { ProviderSessions } from '../providers/provider-session.ts';
import { ItemWriter } from './item-writer.ts';
import type { WriteFence } from './lease.ts';
import { NeedsUserActionError } from '../../domain/run-failures.ts';

export interface RunnerDeps {
  db: Database;
  blobs: BlobStore;
  documents: DocumentReader;
  connectors: { get(type: string): Connector | undefined };
  sessions: ProviderSessions;
  log: Logger;
  clock: () => Date;
  isHeld(collectionId: string): Promise<boolean>;
  /** An injected hold check (SyncEngineDeps.isHeld), OR-ed with the table inside each flush (item-writer.ts). */
  heldOverride?(collectionId: string): Promise<boolean>;
  intervalMinutes: number;
  retry: RunBackoff;
}

/** The collection a run collects, checked, with the filters the run collects under and the cursors they allow. */
export interface RunCollection {
  collection: CollectionRow;
  connector: Connector;
  /** the run's filters: those it started with (a PATCH since is for the next run), else the collection's */
  filtersText: string;
  filters: unknown;
  fingerprint: string;
  /** the previous successful run's cursors, when it had the same filters */
  cursors: unknown;
}

/** Throws NeedsUserActionError when a person must act first: no connector here, no paired wallet, no filters. */
export async function checkCollection(
  deps: RunnerDeps,
  run: RunRow,
  collection: CollectionRow,
): Promise<RunCollection> {
  const connector = deps.connectors.get(collection.type);
  if (!connector)
    throw new NeedsUserActionError(`no connector for collection type "${collection.type}" on this server`);
  const wallet = await new WalletRepo(deps.db).getById(collection.wallet_id);
  if (!wallet?.sealed_grant)
    throw new NeedsUserActionError('re-pair credentials: the wallet has no paired credentials');
  if (collection.sync_filters === null) throw new NeedsUserActionError('no sync_filters saved: PATCH the collection');
  const filtersText = run.sync_filters ?? collection.sync_filters;
  const filters = JSON.parse(filtersText) as unknown;
  const fingerprint = filtersFingerprint(filters);
  const stored = await new CursorRepo(deps.db).get(collection.id);
  const cursors = stored && stored.fingerprint === fingerprint ? stored.value : null;
  return { collection, connector, filtersText, filters, fingerprint, cursors };
}

/** Which unit is being collected, and on whose lease. */
export interface UnitTarget {
  owner: string;
  listingRunId: string;
  counters: Counters;
  checkpoint: unknown;
  /** the run's scope (its own unit) or this unit's key (a unit job) */
  scope: string[] | null;
  /** the pieces on the collection's retry list this unit collects again */
  retries(r: UnitRetryRow): boolean;
  /** the reconciliation units of the run this unit continues (default: all) */
  continues?(unitKey: string): boolean;
  /** reconciliation units another unit job of the run owns */
  foreign?(unitKey: string): boolean;
  /** default: the run's lease */
  fence?: WriteFence;
  onProgress?: () => void;
  /** a fanned-out run's units, and the claim of a piece two units reach */
  units?: UnitSpec[];
  claim?(key: string): Promise<boolean>;
}

export interface UnitContext {
  session: ItemWriter;
  ledger: UnitLedger;
  ctx: CollectContext;
  retries: UnitRetryRow[];
}

/** Builds the ledger, the session and the connector's context of one unit (opening the provider session). */
export async function openUnitContext(
  deps: RunnerDeps,
  run: RunRow,
  at: RunCollection,
  target: UnitTarget,
  signal: AbortSignal,
  log: Logger,
): Promise<UnitContext> {
  const { collection, connector } = at;
  const units = new UnitRepo(deps.db);
  const retries = (await units.retries(collection.id)).filter((r) => target.retries(r));
  const ledger = new UnitLedger(
    { runId: run.id, collectionId: collection.id, accountId: collection.account_id },
    deps.clock,
    (await units.list(run.id)).filter((u) => target.continues?.(u.unit_key) ?? true),
    new Set(retries.map((r) => `${r.kind}\u0000${r.source_id}`)),
    target.foreign,
  );
  const session = new ItemWriter(deps, {
    ledger,
    runId: run.id,
    listingRunId: target.listingRunId,
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
    filters: at.filters,
    checkpoint: target.checkpoint,
    cursors: at.cursors,
    scope: target.scope,
    ...(target.units && { units: target.units }),
    ...(target.claim && { claim: target.claim }),
  };
  return { session, ledger, ctx, retries };
}
