import { sql, type Selectable } from 'kysely';
import { ACTIVE_RUN_STATUSES, runStatusesBefore, type FinalRunStatus } from '../domain/run-state.ts';
import { compiledOnce } from './compiled.ts';
import { atomically, type Executor } from './transaction.ts';
import { recordRunFinished, recordRunStarted } from './run-records.ts';
import { newId } from './ids.ts';
import { releasedLease } from './lease-times.ts';
import { decodeCursor, encodeCursor } from './paging.ts';
import type { SyncTables } from './schema-sync.ts';

export type RunRow = Selectable<SyncTables['runs']>;
/** What a run's summary shows (read with the collection on its hot GET). */
export type RunHead = Pick<
  RunRow,
  | 'id'
  | 'trigger'
  | 'scope'
  | 'status'
  | 'listed'
  | 'collected'
  | 'skipped'
  | 'unchanged'
  | 'failed'
  | 'bytes'
  | 'error_count'
  | 'started_at'
  | 'finished_at'
>;
/** `event`: a provider event's targeted run, limited to `scope` (custodian ids). */
export type RunTrigger = 'start' | 'schedule' | 'retry' | 'event';
export type { RunStatus } from '../domain/run-state.ts';
export { RUN_STATUSES } from '../domain/run-state.ts';
export const ACTIVE_STATUSES = ACTIVE_RUN_STATUSES;

export interface Counters {
  listed: number;
  collected: number;
  skipped: number;
  unchanged: number;
  failed: number;
  bytes: number;
  error_count: number;
}

export function countersOf(run: Pick<RunRow, keyof Counters>): Counters {
  const { listed, collected, skipped, unchanged, failed, bytes, error_count } = run;
  return { listed, collected, skipped, unchanged, failed, bytes, error_count };
}

/** What a run's owner writes with each durable step; fenced on ownership so a cancelled run writes nothing. */
export interface Progress {
  counters: Counters;
  /** undefined = unchanged; null = cleared */
  checkpoint?: string | null;
  pendingCursors?: string | null;
  filtersFingerprint?: string;
  /** the filters the run is planned with (runs.sync_filters) */
  syncFilters?: string;
  listingRunId?: string;
}

export class RunRepo {
  constructor(private readonly db: Executor) {}

  /**
   * Inserts a queued run unless the collection already has an active one (the partial unique index decides,
   * even across processes). Returns the run that is active afterwards.
   */
  async insertQueued(input: {
    collectionId: string;
    accountId: string;
    trigger: RunTrigger;
    at: string;
    checkpoint?: string | null;
    filtersFingerprint?: string | null;
    /** a retry resuming another run's checkpoint continues that run's listing marks */
    listingRunId?: string | null;
    /** custodian ids an `event` run is limited to */
    scope?: string[] | null;
  }): Promise<{ run: RunRow; created: boolean }> {
    const inserted = await this.db
      .insertInto('runs')
      .values({
        id: newId('run'),
        collection_id: input.collectionId,
        account_id: input.accountId,
        trigger: input.trigger,
        status: 'queued',
        created_at: input.at,
        started_at: null,
        finished_at: null,
        heartbeat_at: null,
        lease_owner: null,
        lease_expires_at: null,
        checkpoint: input.checkpoint ?? null,
        filters_fingerprint: input.filtersFingerprint ?? null,
        pending_cursors: null,
        error: null,
        listing_run_id: input.listingRunId ?? null,
        scope: input.scope ? JSON.stringify(input.scope) : null,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { run: inserted, created: true };
    const active = await this.active(input.collectionId);
    // The active run finished between our insert and this read: try once more.
    if (!active) return this.insertQueued(input);
    return { run: active, created: false };
  }

  /**
   * Widens a still-queued `event` run to more custodians (coalescing); false when the run is no longer queued
   * (a worker claimed it: its scope is fixed) or is not an event run.
   */
  async widenQueuedScope(id: string, scope: string[]): Promise<boolean> {
    const res = await this.db
      .updateTable('runs')
      .set({ scope: JSON.stringify(scope) })
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .where('trigger', '=', 'event')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async get(id: string): Promise<RunRow | undefined> {
    return this.db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The run's status alone (its row carries the filters it was planned with: megabytes at 10,000 custodians). */
  async status(id: string): Promise<RunRow['status'] | undefined> {
    const row = await this.db.selectFrom('runs').select('status').where('id', '=', id).executeTakeFirst();
    return row?.status;
  }

  async active(collectionId: string): Promise<RunRow | undefined> {
    return this.db
      .selectFrom('runs')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .where('status', 'in', [...ACTIVE_STATUSES])
      .executeTakeFirst();
  }

  async latest(collectionId: string): Promise<RunRow | undefined> {
    return (await latestRun(this.db, collectionId))[0];
  }

  /** Newest first. */
  async list(collectionId: string, opts: { cursor?: string; limit: number }) {
    const before = decodeCursor(opts.cursor);
    let q = this.db.selectFrom('runs').selectAll().where('collection_id', '=', collectionId);
    if (before) {
      q = q.where((eb) =>
        eb.or([eb('created_at', '<', before[0]), eb.and([eb('created_at', '=', before[0]), eb('id', '<', before[1])])]),
      );
    }
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(opts.limit + 1)
      .execute();
    const page = rows.slice(0, opts.limit);
    const last = page[page.length - 1];
    return { rows: page, cursor: rows.length > opts.limit && last ? encodeCursor(last.created_at, last.id) : null };
  }

  /** Finished runs since the last success, newest first (drives retry backoff). */
  async consecutiveFailures(collectionId: string): Promise<number> {
    const rows = await this.db
      .selectFrom('runs')
      .select('status')
      .where('collection_id', '=', collectionId)
      .where('status', 'in', ['succeeded', 'completed_with_errors', 'failed'])
      .orderBy('created_at', 'desc')
      .limit(50)
      .execute();
    let n = 0;
    for (const r of rows) {
      if (r.status !== 'failed') break;
      n += 1;
    }
    return n;
  }

  /** Queued runs, and running runs whose lease has expired, oldest first. */
  async claimable(now: string, limit: number): Promise<RunRow[]> {
    return this.db
      .selectFrom('runs')
      .selectAll()
      .where((eb) =>
        eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<', now)])]),
      )
      .orderBy('created_at')
      .limit(limit)
      .execute();
  }

  /** Running runs with a live lease held by one of these owner prefixes (used to spot owners that died). */
  async runningOwnedBy(ownerPrefix: string): Promise<RunRow[]> {
    return this.db
      .selectFrom('runs')
      .selectAll()
      .where('status', '=', 'running')
      .where('lease_owner', 'like', `${ownerPrefix}%`)
      .execute();
  }

  /**
   * Compare-and-swap claim: a queued run, a running run whose lease expired, or one held by `deadOwner`.
   * Returns the claimed row or undefined when someone else has it. The first claim (`started_at` set) records
   * `run.start` in the same transaction; a run resumed after a crash or a lost lease records nothing new.
   */
  async claim(
    id: string,
    owner: string,
    now: string,
    leaseUntil: string,
    deadOwner?: string,
  ): Promise<RunRow | undefined> {
    return atomically(this.db, async (trx) => {
      const row = await trx
        .updateTable('runs')
        .set((eb) => ({
          status: 'running',
          lease_owner: owner,
          lease_expires_at: leaseUntil,
          heartbeat_at: now,
          started_at: eb.fn.coalesce('started_at', eb.val(now)),
          attempt: eb('attempt', '+', 1),
        }))
        .where('id', '=', id)
        .where((eb) => {
          const stale = [
            eb('status', '=', 'queued'),
            eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<', now)]),
          ];
          if (deadOwner) stale.push(eb.and([eb('status', '=', 'running'), eb('lease_owner', '=', deadOwner)]));
          return eb.or(stale);
        })
        .returningAll()
        .executeTakeFirst();
      // Taken up for the first time: started now (a shutdown gives its attempt back, so `attempt` cannot tell).
      if (row && row.started_at === now) await recordRunStarted(trx, row, now);
      return row;
    });
  }

  /** Extends the lease; false when the run was cancelled or another owner took it. */
  async heartbeat(id: string, owner: string, now: string, leaseUntil: string): Promise<boolean> {
    const res = await this.db
      .updateTable('runs')
      .set({ heartbeat_at: now, lease_expires_at: leaseUntil })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * Lets another process pick the run up at once (graceful shutdown, no progress), if `attempt` (the claim's) still
   * holds it. `uncount`: stopped by a shutdown, not by the work: the attempt its claim counted is given back.
   */
  async releaseLease(id: string, owner: string, now: string, attempt: number, uncount = false): Promise<void> {
    await this.db
      .updateTable('runs')
      .set(releasedLease(now, uncount))
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('attempt', '=', attempt)
      .where('status', '=', 'running')
      .execute();
  }

  /**
   * Writes progress as the first statement of a transaction: it takes the run's row lock (PostgreSQL) or the
   * write lock (SQLite), so a concurrent cancel either waits for this transaction or makes it write nothing.
   */
  async saveProgress(id: string, owner: string, now: string, p: Progress): Promise<boolean> {
    const { error_count, ...counters } = p.counters;
    const res = await this.db
      .updateTable('runs')
      .set({
        ...counters,
        error_count,
        heartbeat_at: now,
        ...(p.checkpoint !== undefined && { checkpoint: p.checkpoint }),
        ...(p.pendingCursors !== undefined && { pending_cursors: p.pendingCursors }),
        ...(p.filtersFingerprint !== undefined && { filters_fingerprint: p.filtersFingerprint }),
        ...(p.syncFilters !== undefined && { sync_filters: p.syncFilters }),
        ...(p.listingRunId !== undefined && { listing_run_id: p.listingRunId }),
      })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Ends a run the caller owns and records `run.finish` with it; false when it no longer owns the run. */
  async finish(id: string, owner: string, status: FinalRunStatus, at: string, error: string | null): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      const row = await trx
        .updateTable('runs')
        .set({ status, finished_at: at, error, lease_expires_at: null })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('status', 'in', runStatusesBefore('finish', status))
        .returning(['id', 'account_id', 'collection_id'])
        .executeTakeFirst();
      if (row) await recordRunFinished(trx, row, status, at, error);
      return row !== undefined;
    });
  }

  /** Cancels whatever run is active for the collection, recording `run.finish` for each; returns them. */
  async cancelActive(
    collectionId: string,
    at: string,
    /** In the same transaction, before each run's `run.finished` (its units' last progress, say). */
    beforeFinished?: (run: RunRow) => Promise<void>,
  ): Promise<RunRow[]> {
    return atomically(this.db, async (trx) => {
      const rows = await trx
        .updateTable('runs')
        .set({ status: 'cancelled', finished_at: at, error: 'cancelled', lease_expires_at: null })
        .where('collection_id', '=', collectionId)
        .where('status', 'in', runStatusesBefore('cancel', 'cancelled'))
        .returningAll()
        .execute();
      for (const row of rows) {
        await beforeFinished?.(row);
        await recordRunFinished(trx, row, 'cancelled', at, 'cancelled');
      }
      return rows;
    });
  }

  /** One more error on the run's counter (a run-level failure, beside the item errors counted with progress). */
  async countError(id: string): Promise<void> {
    await this.db
      .updateTable('runs')
      .set((eb) => ({ error_count: eb('error_count', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  /** `n` pieces failed outside any unit's own counting (each also an error of the run). */
  async countFailures(id: string, n: number): Promise<void> {
    await this.db
      .updateTable('runs')
      .set((eb) => ({ failed: eb('failed', '+', n), error_count: eb('error_count', '+', n) }))
      .where('id', '=', id)
      .execute();
  }

  /** The cursors a run collected, kept for the next run only once it succeeds. */
  async pendingCursors(id: string): Promise<string | null> {
    const row = await this.db.selectFrom('runs').select('pending_cursors').where('id', '=', id).executeTakeFirst();
    return row?.pending_cursors ?? null;
  }

  /** Every run of the collection, oldest first (manifest). */
  async allOfCollection(collectionId: string): Promise<RunRow[]> {
    return this.db
      .selectFrom('runs')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .orderBy('created_at')
      .execute();
  }

  async deleteByCollection(collectionId: string): Promise<void> {
    await this.db.deleteFrom('run_errors').where('collection_id', '=', collectionId).execute();
    await this.db.deleteFrom('runs').where('collection_id', '=', collectionId).execute();
  }
}

// read by every GET of a collection
// `limit 1` written out: SQLite plans a bound limit anew on every run, which costs it eight times the read itself
const latestRun = compiledOnce((db: Executor, collectionId: string) =>
  db
    .selectFrom('runs')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(sql.lit(1)),
);
