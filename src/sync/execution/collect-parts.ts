// What both the run job (run-context.ts) and a unit job (unit-context.ts) open before they collect: the collection
// checked (a wallet can be unpaired, a connector missing on this worker), the filters the run collects under, and a
// writer, ledger and connector context of their own.
import { type CollectContext, type Connector, type Logger } from '../../connectors/types.ts';
import { actionBeforeRun } from '../../domain/run-failures.ts';
import { filtersFingerprint } from '../../provider/fingerprint.ts';
import type { CollectionHead } from '../../store/collections.ts';
import { CursorRepo } from '../../store/items.ts';
import type { Counters, RunRow } from '../../store/runs.ts';
import { UnitRepo, type RunUnitRow, type UnitRetryRow } from '../../store/units.ts';
import { WalletRepo } from '../../store/wallets.ts';
import type { RunnerDeps } from '../deps.ts';
import { UnitLedger } from './ledger.ts';
import { ItemWriter } from './item-writer.ts';
import type { WriteFence } from './lease.ts';

/** The collection a run collects, checked, with the filters the run collects under and the cursors they allow. */
export interface RunCollection {
  collection: CollectionHead;
  connector: Connector;
  /** the run's filters: those it started with (a PATCH since is for the next run), else the collection's */
  filtersText: string;
  filters: unknown;
  fingerprint: string;
  /** the previous successful run's cursors, when it had the same filters */
  cursors: unknown;
}

export type RunFilters = Pick<RunCollection, 'filtersText' | 'filters' | 'fingerprint' | 'cursors'>;

/** The run's filters parsed, their fingerprint and the stored cursors they allow. */
export async function runFiltersOf(
  deps: Pick<RunnerDeps, 'db'>,
  collectionId: string,
  filtersText: string,
): Promise<RunFilters> {
  const filters = JSON.parse(filtersText) as unknown;
  const fingerprint = filtersFingerprint(filters);
  const stored = await new CursorRepo(deps.db).get(collectionId);
  const cursors = stored && stored.fingerprint === fingerprint ? stored.value : null;
  return { filtersText, filters, fingerprint, cursors };
}

/**
 * Throws NeedsUserActionError when a person must act first: no connector here, no paired wallet, no filters.
 * `filtersOf`: where the run's filters come from (a unit job's: read once per run, unit-memo.ts).
 */
export async function checkCollection(
  deps: RunnerDeps,
  collection: CollectionHead,
  filtersOf: () => Promise<RunFilters>,
): Promise<RunCollection> {
  const found = deps.connectors.get(collection.type);
  const wallet = await new WalletRepo(deps.db).getById(collection.wallet_id);
  const refusal = actionBeforeRun(collection, {
    connector: found !== undefined,
    grant: !!wallet?.sealed_grant,
    filters: collection.has_filters,
  });
  if (refusal) throw refusal;
  return { collection, connector: found!, ...(await filtersOf()) };
}

/** Whose writer this is and what it continues. */
export interface PartsTarget {
  owner: string;
  listingRunId: string;
  counters: Counters;
  checkpoint: unknown;
  /** the pieces on the collection's retry list collected again */
  retries(r: UnitRetryRow): boolean;
  /** the units whose pieces `retries` can accept, when the caller knows them (read instead of the whole list) */
  retryUnits?: string[];
  /** the run's reconciliation units this writer continues */
  continues(unit: RunUnitRow): boolean;
  /** reconciliation units another unit job of the run owns */
  foreign?(unitKey: string): boolean;
  /** the reconciliation units `continues` can accept, when the caller knows them (read instead of all the run's) */
  continuing?: string[];
  fence?: WriteFence;
  onProgress?: () => void;
}

export interface CollectParts {
  session: ItemWriter;
  ledger: UnitLedger;
  /** the connector context without its run-specific fields (scope, units, claim) */
  ctx: CollectContext;
  retries: UnitRetryRow[];
}

/** Builds the ledger, writer and connector context (opening the provider session). */
export async function openCollectParts(
  deps: RunnerDeps,
  run: RunRow,
  at: RunCollection,
  target: PartsTarget,
  signal: AbortSignal,
  log: Logger,
): Promise<CollectParts> {
  const { collection, connector } = at;
  const units = new UnitRepo(deps.db);
  const retries = (await units.retries(collection.id, target.retryUnits)).filter((r) => target.retries(r));
  const ledger = new UnitLedger(
    { runId: run.id, collectionId: collection.id, accountId: collection.account_id },
    deps.clock,
    (target.continuing ? await units.listOf(run.id, target.continuing) : await units.list(run.id)).filter((u) =>
      target.continues(u),
    ),
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
  };
  return { session, ledger, ctx, retries };
}
