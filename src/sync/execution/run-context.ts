// What the run job needs (runner.ts): its collection checked, with the filters the run collects under, and the
// run's own writer, ledger and connector context, fenced on the run's lease. With them the run plans its units
// (plan.ts) or, for a connector without a planner, collects its single unit in place. A unit job of a fanned-out
// run opens its own context (unit-context.ts).
import { type CollectContext, type Connector, type Logger } from '../../connectors/types.ts';
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
  const found = deps.connectors.get(collection.type);
  const wallet = await new WalletRepo(deps.db).getById(collection.wallet_id);
  const refusal = actionBeforeRun(collection, { connector: found !== undefined, grant: !!wallet?.sealed_grant });
  if (refusal) throw refusal;
  const connector = found!;
  const filtersText = run.sync_filters ?? collection.sync_filters!;
  const filters = JSON.parse(filtersText) as unknown;
  const fingerprint = filtersFingerprint(filters);
  const stored = await new CursorRepo(deps.db).get(collection.id);
  const cursors = stored && stored.fingerprint === fingerprint ? stored.value : null;
  return { collection, connector, filtersText, filters, fingerprint, cursors };
}

/** Where the run stands: the attempt's owner, and what a resumed attempt continues. */
export interface RunTarget {
  owner: string;
  listingRunId: string;
  counters: Counters;
  checkpoint: unknown;
  scope: string[] | null;
  onProgress?: () => void;
}

export interface RunContext {
  session: ItemWriter;
  ledger: UnitLedger;
  ctx: CollectContext;
  /** the pieces on the collection's retry list the run collects again (a targeted (event) run: its units' only) */
  retries: UnitRetryRow[];
}

/** Builds the run's ledger, writer and connector context (opening the provider session). */
export async function openRunContext(
  deps: RunnerDeps,
  run: RunRow,
  at: RunCollection,
  target: RunTarget,
  signal: AbortSignal,
  log: Logger,
): Promise<RunContext> {
  const { collection, connector } = at;
  const { scope } = target;
  const units = new UnitRepo(deps.db);
  const retries = (await units.retries(collection.id)).filter((r) => scope === null || scope.includes(r.unit_key));
  const ledger = new UnitLedger(
    { runId: run.id, collectionId: collection.id, accountId: collection.account_id },
    deps.clock,
    await units.list(run.id),
    new Set(retries.map((r) => `${r.kind}\u0000${r.source_id}`)),
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
    scope,
  };
  return { session, ledger, ctx, retries };
}
