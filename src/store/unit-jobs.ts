import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { DB } from './schema.ts';
import type { Counters } from './runs.ts';
import { foldUnitCounters } from './run-counters.ts';
import { dialectOf } from './db.ts';
import { releasedLease } from './lease-times.ts';
import { atomically, type Executor } from './transaction.ts';
import type { UnitTables } from './schema-units.ts';

export type UnitJobRow = Selectable<UnitTables['unit_jobs']>;
export type UnitJobStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

// Written as literals, not parameters: SQLite uses a partial index (migration 030) only for a query whose terms
// match the index's own condition when the statement is prepared.
const OPEN = sql<boolean>`status in ('queued', 'running')`;

/** What `fanned out` runs hold as lease owner: no process, so neither the sweep nor a claim takes them as one job. */
export function unitsOwner(runId: string): string {
  return `units:${runId}`;
}

/**
 * The jobs of a run fanned out into units. Every write that belongs to a unit's step is fenced on the unit's
 * own row (its lease), so units of one run flush side by side. A unit's ending and a cancel lock the run row first
 * and the unit rows after (a flush locks only its unit's), so that the run's counters, a cancel and the decision
 * which unit finished last never race.
 */
export class UnitJobRepo {
  constructor(private readonly db: Executor) {}

  async get(runId: string, unitKey: string): Promise<UnitJobRow | undefined> {
    return this.db
      .selectFrom('unit_jobs')
      .selectAll()
      .where('run_id', '=', runId)
      .where('unit_key', '=', unitKey)
      .executeTakeFirst();
  }

  async list(runId: string): Promise<UnitJobRow[]> {
    return this.db.selectFrom('unit_jobs').selectAll().where('run_id', '=', runId).orderBy('unit_key').execute();
  }

  /** The key of the run's first unit (in key order) no one has claimed yet. */
  async firstQueued(runId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('unit_jobs')
      .select('unit_key')
      .where('run_id', '=', runId)
      .where('status', '=', 'queued')
      .orderBy('unit_key')
      .limit(1)
      .executeTakeFirst();
    return row?.unit_key;
  }

  /** The run's units as planned, without what their work wrote (checkpoints, cursors). */
  async plan(runId: string): Promise<Pick<UnitJobRow, 'unit_key' | 'kind' | 'email' | 'plan_data'>[]> {
    return this.db
      .selectFrom('unit_jobs')
      .select(['unit_key', 'kind', 'email', 'plan_data'])
      .where('run_id', '=', runId)
      .orderBy('unit_key')
      .execute();
  }

  /**
   * Inserts the run's units (idempotent: a planner resumed after a crash adds none twice) and hands the run to them:
   * its lease owner becomes `units:<run_id>` with no expiry. False when the caller no longer owns the run.
   */
  async fanOut(
    runId: string,
    owner: string,
    collectionId: string,
    units: Array<{ key: string; kind: string; email: string | null; data?: unknown }>,
    at: string,
  ): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      const res = await trx
        .updateTable('runs')
        .set({ units: units.length, lease_owner: unitsOwner(runId), lease_expires_at: null, heartbeat_at: at })
        .where('id', '=', runId)
        .where('lease_owner', '=', owner)
        .where('status', '=', 'running')
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return false;
      for (const u of units) {
        await trx
          .insertInto('unit_jobs')
          .values({
            run_id: runId,
            unit_key: u.key,
            collection_id: collectionId,
            kind: u.kind,
            email: u.email,
            status: 'queued',
            lease_owner: null,
            lease_expires_at: null,
            heartbeat_at: null,
            checkpoint: null,
            pending_cursors: null,
            error: null,
            created_at: at,
            finished_at: null,
            plan_data: u.data === undefined ? null : JSON.stringify(u.data),
          })
          .onConflict((oc) => oc.columns(['run_id', 'unit_key']).doNothing())
          .execute();
      }
      return true;
    });
  }

  /**
   * Compare-and-swap claim of a unit of a running run: queued, running with an expired lease, or held by `deadOwner`.
   * Undefined when another process holds it, it ended, or its run did.
   */
  async claim(
    runId: string,
    unitKey: string,
    owner: string,
    now: string,
    leaseUntil: string,
    deadOwner?: string,
  ): Promise<UnitJobRow | undefined> {
    return this.db
      .updateTable('unit_jobs')
      .set((eb) => ({
        status: 'running',
        lease_owner: owner,
        lease_expires_at: leaseUntil,
        heartbeat_at: now,
        last_progress_at: now,
        attempt: eb('attempt', '+', 1),
      }))
      .where('run_id', '=', runId)
      .where('unit_key', '=', unitKey)
      .where((eb) => {
        const stale = [
          eb('status', '=', 'queued'),
          eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<', now)]),
        ];
        if (deadOwner) stale.push(eb.and([eb('status', '=', 'running'), eb('lease_owner', '=', deadOwner)]));
        return eb.or(stale);
      })
      .where((eb) =>
        eb.exists(
          eb.selectFrom('runs').select('runs.id').where('runs.id', '=', runId).where('runs.status', '=', 'running'),
        ),
      )
      .returningAll()
      .executeTakeFirst();
  }

  async heartbeat(
    runId: string,
    unitKey: string,
    owner: string,
    now: string,
    leaseUntil: string,
    lastProgressAt?: string,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable('unit_jobs')
      .set({
        heartbeat_at: now,
        lease_expires_at: leaseUntil,
        ...(lastProgressAt !== undefined && { last_progress_at: lastProgressAt }),
      })
      .where('run_id', '=', runId)
      .where('unit_key', '=', unitKey)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * Lets another process take the unit over at once (graceful shutdown, no progress), if `attempt` (the claim's) still
   * holds it. `uncount`: stopped by a shutdown, not by the work: the attempt its claim counted is given back.
   */
  async releaseLease(
    runId: string,
    unitKey: string,
    owner: string,
    now: string,
    attempt: number,
    uncount = false,
  ): Promise<void> {
    await this.db
      .updateTable('unit_jobs')
      .set(releasedLease(now, uncount))
      .where('run_id', '=', runId)
      .where('unit_key', '=', unitKey)
      .where('lease_owner', '=', owner)
      .where('attempt', '=', attempt)
      .where('status', '=', 'running')
      .execute();
  }

  /**
   * A unit's durable step, inside the caller's transaction: stores the unit's counters, checkpoint and cursors on
   * its own row, fenced on its lease. The run's row is not touched: units of one run flush side by side, and the
   * run's counters get its units' once, when the run ends (`foldUnitCounters` at fan-in) or is cancelled
   * (`cancelRun`); until then readers add them (`liveRunCounters`). False when the unit or its run is no longer the
   * caller's (cancelled, taken over, ended): the caller must roll back.
   */
  async saveProgress(
    runId: string,
    unitKey: string,
    owner: string,
    now: string,
    p: { counters: Counters; checkpoint?: string | null; pendingCursors?: string | null },
  ): Promise<boolean> {
    const res = await this.db
      .updateTable('unit_jobs')
      .set({
        ...p.counters,
        heartbeat_at: now,
        ...(p.checkpoint !== undefined && { checkpoint: p.checkpoint }),
        ...(p.pendingCursors !== undefined && { pending_cursors: p.pendingCursors }),
      })
      .where('run_id', '=', runId)
      .where('unit_key', '=', unitKey)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      // a plain read (no lock): a cancel or a fan-in changes the unit's own row too, which is what orders them
      .where((eb) =>
        eb.exists(
          eb.selectFrom('runs').select('runs.id').where('runs.id', '=', runId).where('runs.status', '=', 'running'),
        ),
      )
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * Ends the caller's unit (done or failed), inside the caller's transaction, and tells whether it was the run's
   * last one: exactly one unit of a run sees `last`, because every ending first locks the run row (PostgreSQL; on
   * SQLite the transaction's write lock orders them). The run's row is not written: on SQLite an update rewrites the
   * whole row, filters included (1.3 MB at 10,000 custodians), once per unit. The unit's counters stay on its row
   * (a failed unit's with its one failure), readers add them while the run runs (liveRunCounters), and the run's end
   * or its cancel adds them all to the run's row once (foldUnitCounters).
   */
  async finish(
    runId: string,
    unitKey: string,
    owner: string,
    status: 'done' | 'failed',
    at: string,
    failure?: { error: string; needsAction: boolean },
  ): Promise<{ finished: boolean; last: boolean }> {
    return atomically(this.db, async (trx) => {
      if (dialectOf(trx) === 'postgres') {
        const run = await trx
          .selectFrom('runs')
          .select('id')
          .where('id', '=', runId)
          .where('status', '=', 'running')
          .forUpdate()
          .executeTakeFirst();
        if (!run) return { finished: false, last: false };
      }
      const ended = await trx
        .updateTable('unit_jobs')
        .set((eb) => ({
          status,
          finished_at: at,
          lease_expires_at: null,
          error: failure?.error ?? null,
          needs_action: failure?.needsAction ? 1 : 0,
          ...(failure && { failed: eb('failed', '+', 1), error_count: eb('error_count', '+', 1) }),
        }))
        .where('run_id', '=', runId)
        .where('unit_key', '=', unitKey)
        .where('lease_owner', '=', owner)
        .where('status', '=', 'running')
        .where((eb) =>
          eb.exists(
            eb.selectFrom('runs').select('runs.id').where('runs.id', '=', runId).where('runs.status', '=', 'running'),
          ),
        )
        // one index probe, not a count of the run's units: every unit's ending asks. Read after the run row's lock
        // was granted, so an ending committed before it is seen.
        .returning((eb) =>
          eb
            .exists(
              eb
                .selectFrom('unit_jobs as other')
                .select('other.unit_key')
                .where('other.run_id', '=', runId)
                .where('other.unit_key', '!=', unitKey)
                .where(OPEN),
            )
            .as('others_open'),
        )
        .execute();
      if (ended.length !== 1) return { finished: false, last: false };
      return { finished: true, last: !Number(ended[0].others_open) };
    });
  }

  /**
   * A cancel, inside the transaction that cancelled the run (which holds its row): every unit not yet ended stops
   * (their next fenced write fails) and what every unit counted is added to the run's counters. Units are stopped
   * first: a flush in flight holds its unit's row, so it commits before and is counted.
   */
  async cancelRun(runId: string, at: string): Promise<number> {
    const rows = await this.db
      .updateTable('unit_jobs')
      .set({ status: 'cancelled', finished_at: at, lease_expires_at: null })
      .where('run_id', '=', runId)
      .where('status', 'in', ['queued', 'running'])
      .returning('unit_key')
      .execute();
    await foldUnitCounters(this.db, runId);
    return rows.length;
  }

  /**
   * Units of running runs a worker may take now: queued (in the order of the index `unit_jobs_queued`), or running
   * with an expired lease (the status index), oldest first.
   */
  async claimable(now: string, limit: number): Promise<UnitJobRow[]> {
    const ofRunningRun = (eb: ExpressionBuilder<DB, 'unit_jobs'>) =>
      eb.exists(
        eb
          .selectFrom('runs')
          .select('runs.id')
          .whereRef('runs.id', '=', 'unit_jobs.run_id')
          .where('runs.status', '=', 'running'),
      );
    const queued = await this.db
      .selectFrom('unit_jobs')
      .selectAll()
      .where('status', '=', 'queued')
      .where(ofRunningRun)
      .orderBy('created_at')
      .orderBy('unit_key')
      .limit(limit)
      .execute();
    const expired = await this.db
      .selectFrom('unit_jobs')
      .selectAll()
      .where('status', '=', 'running')
      .where('lease_expires_at', '<', now)
      .where(ofRunningRun)
      .orderBy('lease_expires_at')
      .limit(limit)
      .execute();
    return [...queued, ...expired]
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.unit_key.localeCompare(b.unit_key))
      .slice(0, limit);
  }

  /** Running units with a live lease held by owners with this prefix (to spot owners that died). */
  async runningOwnedBy(ownerPrefix: string): Promise<UnitJobRow[]> {
    return this.db
      .selectFrom('unit_jobs')
      .selectAll()
      .where('status', '=', 'running')
      .where('lease_owner', 'like', `${ownerPrefix}%`)
      .execute();
  }

  async deleteByCollection(collectionId: string): Promise<void> {
    const runIds = this.db.selectFrom('runs').select('id').where('collection_id', '=', collectionId);
    await this.db.deleteFrom('unit_claims').where('run_id', 'in', runIds).execute();
    await this.db.deleteFrom('unit_jobs').where('collection_id', '=', collectionId).execute();
  }
}
