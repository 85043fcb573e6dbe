import type { Selectable } from 'kysely';
import type { Database } from './db.ts';
import { plainReason } from '../domain/plain-reason.ts';
import { newId } from './ids.ts';
import type { UnitTables } from './schema-units.ts';

export type RunUnitRow = Selectable<UnitTables['run_units']>;
export type RunExceptionRow = Selectable<UnitTables['run_exceptions']>;
export type UnitRetryRow = Selectable<UnitTables['unit_retries']>;

/** The reconciliation counts of one unit (or of a whole run). */
export interface Tally {
  listed: number;
  collected: number;
  unchanged: number;
  excluded: number;
  not_present: number;
  failed: number;
  skipped: number;
  bytes: number;
}

export const TALLY_FIELDS = [
  'listed',
  'collected',
  'unchanged',
  'excluded',
  'not_present',
  'failed',
  'skipped',
  'bytes',
] as const;

export function emptyTally(): Tally {
  return { listed: 0, collected: 0, unchanged: 0, excluded: 0, not_present: 0, failed: 0, skipped: 0, bytes: 0 };
}

export interface UnitState extends Tally {
  key: string;
  kind: string;
  email: string | null;
  name: string | null;
  status: string;
}

export type NewException = Omit<RunExceptionRow, 'id'>;

/** Run units, their exceptions and the retry list. Pass a transaction to make a write part of a run's step. */
export class UnitRepo {
  constructor(private readonly db: Database) {}

  async list(runId: string): Promise<RunUnitRow[]> {
    return this.db.selectFrom('run_units').selectAll().where('run_id', '=', runId).orderBy('unit_key').execute();
  }

  /** These units of the run (of those it has). */
  async listOf(runId: string, keys: string[]): Promise<RunUnitRow[]> {
    if (keys.length === 0) return [];
    return this.db
      .selectFrom('run_units')
      .selectAll()
      .where('run_id', '=', runId)
      .where('unit_key', 'in', keys)
      .orderBy('unit_key')
      .execute();
  }

  /** Each run's reconciliation tally (its units' counts added up); a run without units is absent. */
  async tallies(runIds: string[]): Promise<Map<string, Tally>> {
    const out = new Map<string, Tally>();
    if (runIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('run_units')
      .select((eb) => ['run_id', ...TALLY_FIELDS.map((f) => eb.fn.sum<number | string>(f).as(f))])
      .where('run_id', 'in', runIds)
      .groupBy('run_id')
      .execute();
    for (const r of rows) {
      const t = emptyTally();
      for (const f of TALLY_FIELDS) t[f] = Number(r[f]);
      out.set(r.run_id, t);
    }
    return out;
  }

  /** Inserts or overwrites the units' counts and status (the session holds the cumulative values). */
  async save(runId: string, collectionId: string, units: UnitState[], at: string): Promise<void> {
    for (const u of units) {
      const counts = Object.fromEntries(TALLY_FIELDS.map((f) => [f, u[f]])) as unknown as Tally;
      await this.db
        .insertInto('run_units')
        .values({
          run_id: runId,
          unit_key: u.key,
          collection_id: collectionId,
          kind: u.kind,
          email: u.email,
          name: u.name,
          status: u.status,
          updated_at: at,
          ...counts,
        })
        .onConflict((oc) =>
          oc
            .columns(['run_id', 'unit_key'])
            .doUpdateSet({ kind: u.kind, email: u.email, name: u.name, status: u.status, updated_at: at, ...counts }),
        )
        .execute();
    }
  }

  /** Units a stopped run never finished: their exceptions say `not_reached`. */
  async markNotReached(runId: string, at: string): Promise<string[]> {
    const rows = await this.db
      .updateTable('run_units')
      .set({ status: 'not_reached', updated_at: at })
      .where('run_id', '=', runId)
      .where('status', 'in', ['pending', 'running'])
      .returning('unit_key')
      .execute();
    return rows.map((r) => r.unit_key);
  }

  async addExceptions(rows: NewException[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 200) {
      await this.db
        .insertInto('run_exceptions')
        .values(rows.slice(i, i + 200).map((r) => ({ id: newId('exc'), ...r, reason: plainReason(r.reason) })))
        .execute();
    }
  }

  async exceptions(runId: string): Promise<RunExceptionRow[]> {
    return this.db
      .selectFrom('run_exceptions')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('unit_key')
      .orderBy('at')
      .orderBy('id')
      .execute();
  }

  /** Pieces still to be tried again (not yet permanently failed), of these units only when they are named. */
  async retries(collectionId: string, unitKeys?: string[]): Promise<UnitRetryRow[]> {
    if (unitKeys?.length === 0) return [];
    let q = this.db
      .selectFrom('unit_retries')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .where('permanent', '=', 0);
    // by unit: an index (migration 031), so a unit of a run over many custodians reads its own pieces alone
    if (unitKeys) q = q.where('unit_key', 'in', unitKeys);
    return q.orderBy('unit_key').orderBy('kind').orderBy('source_id').execute();
  }

  /** A piece failed (again): one more attempt counted; `permanent` once `maxAttempts` are spent. */
  async recordFailure(
    r: {
      collectionId: string;
      unitKey: string;
      kind: string;
      sourceId: string;
      name: string;
      piece: unknown;
      reason: string;
      at: string;
    },
    maxAttempts: number,
  ): Promise<UnitRetryRow> {
    const existing = await this.db
      .selectFrom('unit_retries')
      .selectAll()
      .where('collection_id', '=', r.collectionId)
      .where('kind', '=', r.kind)
      .where('source_id', '=', r.sourceId)
      .executeTakeFirst();
    const attempts = (existing?.attempts ?? 0) + 1;
    const row = {
      collection_id: r.collectionId,
      unit_key: r.unitKey,
      kind: r.kind,
      source_id: r.sourceId,
      name: r.name,
      piece: JSON.stringify(r.piece ?? null),
      attempts,
      reason: r.reason.slice(0, 2000),
      permanent: attempts >= maxAttempts ? 1 : 0,
      updated_at: r.at,
    };
    if (existing) {
      await this.db
        .updateTable('unit_retries')
        .set(row)
        .where('collection_id', '=', r.collectionId)
        .where('kind', '=', r.kind)
        .where('source_id', '=', r.sourceId)
        .execute();
    } else {
      await this.db.insertInto('unit_retries').values(row).execute();
    }
    return row;
  }

  /** The piece was collected (or is gone at the source): off the retry list. */
  async clearRetry(collectionId: string, kind: string, sourceId: string): Promise<void> {
    await this.db
      .deleteFrom('unit_retries')
      .where('collection_id', '=', collectionId)
      .where('kind', '=', kind)
      .where('source_id', '=', sourceId)
      .execute();
  }

  /** Every unit of every run of the collection (manifest). */
  async ofCollection(collectionId: string): Promise<RunUnitRow[]> {
    return this.db.selectFrom('run_units').selectAll().where('collection_id', '=', collectionId).execute();
  }

  async permanentFailures(collectionId: string): Promise<UnitRetryRow[]> {
    return this.db
      .selectFrom('unit_retries')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .where('permanent', '=', 1)
      .orderBy('unit_key')
      .orderBy('source_id')
      .execute();
  }

  async deleteByCollection(collectionId: string): Promise<void> {
    await this.db.deleteFrom('run_exceptions').where('collection_id', '=', collectionId).execute();
    await this.db.deleteFrom('run_units').where('collection_id', '=', collectionId).execute();
    await this.db.deleteFrom('unit_retries').where('collection_id', '=', collectionId).execute();
  }
}
