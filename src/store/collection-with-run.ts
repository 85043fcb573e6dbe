// The hot read of GET /collections/{id}: the collection, whether its wallet holds a grant, and its latest run, in one
// statement, kept on SQLite while the database is unchanged (store/direct.ts).
import { sql } from 'kysely';
import type { CollectionRow } from './collections.ts';
import { compiledOnce } from './compiled.ts';
import { whileUnchanged } from './direct.ts';
import type { RunHead } from './runs.ts';
import { UnitRepo, type Tally } from './units.ts';
import { withLiveCounters } from './run-counters.ts';
import type { Executor } from './transaction.ts';

// the sealed grant itself never leaves the database here: only whether there is one
// `limit 1` written out: SQLite plans a bound limit anew on every run
const getCollectionWithPairing = compiledOnce((db: Executor, accountId: string, id: string) =>
  db
    .selectFrom('collections')
    .leftJoin('wallets', 'wallets.id', 'collections.wallet_id')
    .leftJoin('runs', (join) =>
      join.on((eb) =>
        eb(
          'runs.id',
          '=',
          eb
            .selectFrom('runs as latest')
            .select('latest.id')
            .whereRef('latest.collection_id', '=', 'collections.id')
            .orderBy('latest.created_at', 'desc')
            .orderBy('latest.id', 'desc')
            .limit(sql.lit(1)),
        ),
      ),
    )
    .selectAll('collections')
    .select(
      sql<number>`case when wallets.sealed_grant is not null and wallets.sealed_grant <> '' then 1 else 0 end`.as(
        'credentials_paired',
      ),
    )
    .select([
      'runs.id as run_id',
      'runs.trigger as run_trigger',
      'runs.scope as run_scope',
      'runs.status as run_status',
      'runs.listed as run_listed',
      'runs.collected as run_collected',
      'runs.skipped as run_skipped',
      'runs.unchanged as run_unchanged',
      'runs.failed as run_failed',
      'runs.bytes as run_bytes',
      'runs.error_count as run_error_count',
      'runs.started_at as run_started_at',
      'runs.finished_at as run_finished_at',
    ])
    .where('collections.id', '=', id)
    .where('collections.account_id', '=', accountId)
    .where('collections.deleting_at', 'is', null),
);

/** `tally`: the latest run's reconciliation tally (its counts' one source), when it has units. */
export type CollectionWithRun = Readonly<{
  collection: CollectionRow;
  paired: boolean;
  latestRun: RunHead | null;
  tally?: Tally;
}>;

async function readWithPairing(db: Executor, accountId: string, id: string): Promise<CollectionWithRun | undefined> {
  const row = (await getCollectionWithPairing(db, accountId, id))[0];
  if (!row) return undefined;
  const {
    credentials_paired,
    run_id,
    run_trigger,
    run_scope,
    run_status,
    run_listed,
    run_collected,
    run_skipped,
    run_unchanged,
    run_failed,
    run_bytes,
    run_error_count,
    run_started_at,
    run_finished_at,
    ...collection
  } = row;
  const latestRun =
    run_id === null
      ? null
      : {
          id: run_id,
          trigger: run_trigger!,
          scope: run_scope,
          status: run_status!,
          listed: run_listed!,
          collected: run_collected!,
          skipped: run_skipped!,
          unchanged: run_unchanged!,
          failed: run_failed!,
          bytes: run_bytes!,
          error_count: run_error_count!,
          started_at: run_started_at,
          finished_at: run_finished_at,
        };
  const tally = run_id === null ? undefined : (await new UnitRepo(db).tallies([run_id])).get(run_id);
  const [live = null] = latestRun ? await withLiveCounters(db, [latestRun]) : [];
  return { collection, paired: Number(credentials_paired) === 1, latestRun: live, tally };
}

// ids never hold NUL (the HTTP edge refuses it): the key cannot be ambiguous
const getWithPairingCached = whileUnchanged((db: Executor, key: string) => {
  const [accountId, id] = key.split('\u0000') as [string, string];
  return readWithPairing(db, accountId, id);
});

export function collectionWithRun(
  db: Executor,
  accountId: string,
  id: string,
  stamp?: number,
): Promise<CollectionWithRun | undefined> {
  return getWithPairingCached(db, `${accountId}\u0000${id}`, stamp);
}
