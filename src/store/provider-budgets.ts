import { PostgresAdapter, sql } from 'kysely';
import type { Database } from './db.ts';
import { nowIso } from './ids.ts';

/** The learned state of one credential's rate, as stored. */
export interface StoredRate {
  rate: number;
  ceiling: number | null;
  ceilingAt: number | null;
  cutAt: number | null;
}

export interface LearnedRateRow extends StoredRate {
  key: string;
  provider: string;
  credential: string;
  updatedAt: string;
}

/** Learned provider rates (shared by every process, kept across runs) and, on PostgreSQL, concurrency leases. */
export class ProviderBudgetRepo {
  constructor(private readonly db: Database) {}

  get postgres(): boolean {
    return this.db.getExecutor().adapter instanceof PostgresAdapter;
  }

  async get(key: string): Promise<StoredRate | undefined> {
    const row = await this.db.selectFrom('provider_budgets').selectAll().where('key', '=', key).executeTakeFirst();
    return row && toRate(row);
  }

  /** The stored state with its ids and when it was last learned. */
  async row(key: string): Promise<LearnedRateRow | undefined> {
    const row = await this.db.selectFrom('provider_budgets').selectAll().where('key', '=', key).executeTakeFirst();
    return row && toRow(row);
  }

  async list(): Promise<LearnedRateRow[]> {
    const rows = await this.db.selectFrom('provider_budgets').selectAll().orderBy('key').execute();
    return rows.map(toRow);
  }

  /**
   * Applies `change` to the stored state (or to `initial` when there is none) and stores the result, with the row
   * locked on PostgreSQL so that two processes learning at once both count.
   */
  async update(
    ids: { key: string; provider: string; credential: string },
    initial: StoredRate,
    change: (state: StoredRate) => StoredRate,
  ): Promise<StoredRate> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('provider_budgets')
        .values({ ...ids, ...fromRate(initial), updated_at: nowIso() })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      const select = trx.selectFrom('provider_budgets').selectAll().where('key', '=', ids.key);
      const row = await (this.postgres ? select.forUpdate() : select).executeTakeFirstOrThrow();
      const next = change(toRate(row));
      await trx
        .updateTable('provider_budgets')
        .set({ ...fromRate(next), updated_at: nowIso() })
        .where('key', '=', ids.key)
        .execute();
      return next;
    });
  }

  /**
   * PostgreSQL: takes one of `cap` slots of `key` unless all are held by unexpired leases. Slot `n` is the row
   * (`key`, `slot:<n>`); one statement picks a slot that looks free and claims it, the conflict clause re-checking
   * against the committed row, so two takers of one slot cannot both win and no lock serialises the takers. A lost
   * race on a slot that looked free is tried again while free slots remain.
   */
  async tryLease(key: string, cap: number, leaseId: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
    // the cap in the statement's text: a prepared statement's generic plan (pg-statements.ts) would plan the slots'
    // series for a guessed thousand rows
    const slots = sql.lit(Math.max(0, Math.floor(cap)));
    for (let attempt = 0; attempt < cap; attempt++) {
      const { rows } = await sql<{ lease_id: string; taken: boolean }>`
        with live as (
          select lease_id from provider_budget_leases where key = ${key} and expires_at_ms >= ${nowMs}
        ), free as (
          select 'slot:' || s as lease_id from generate_series(0, ${slots} - 1) s
          where 'slot:' || s not in (select lease_id from live)
          -- leases from before slots (random ids) and slots beyond a smaller cap count against this one
          and (select count(*) from live where lease_id not in (select 'slot:' || g from generate_series(0, ${slots} - 1) g)) = 0
          order by random() limit 1
        )
        insert into provider_budget_leases (key, lease_id, holder, expires_at_ms)
        select ${key}, lease_id, ${leaseId}, ${expiresAtMs} from free
        on conflict (key, lease_id) do update set holder = excluded.holder, expires_at_ms = excluded.expires_at_ms
          where provider_budget_leases.expires_at_ms < ${nowMs}
        returning lease_id`.execute(this.db);
      if (rows.length > 0) return true;
      const { rows: free } = await sql<{ n: number }>`
        select count(*)::int as n from provider_budget_leases where key = ${key} and expires_at_ms >= ${nowMs}`.execute(
        this.db,
      );
      if (Number(free[0]?.n ?? cap) >= cap) return false;
    }
    return false;
  }

  async renewLeases(key: string, leaseIds: string[], expiresAtMs: number): Promise<void> {
    if (leaseIds.length === 0) return;
    await this.db
      .updateTable('provider_budget_leases')
      .set({ expires_at_ms: expiresAtMs })
      .where('key', '=', key)
      .where('holder', 'in', leaseIds)
      .execute();
  }

  async releaseLeases(key: string, leaseIds: string[]): Promise<void> {
    if (leaseIds.length === 0) return;
    await this.db.deleteFrom('provider_budget_leases').where('key', '=', key).where('holder', 'in', leaseIds).execute();
  }
}

function toRow(r: {
  key: string;
  provider: string;
  credential: string;
  updated_at: string;
  rate: number;
  ceiling: number | null;
  ceiling_at_ms: number | null;
  cut_at_ms: number | null;
}): LearnedRateRow {
  return { ...toRate(r), key: r.key, provider: r.provider, credential: r.credential, updatedAt: r.updated_at };
}

function toRate(row: {
  rate: number;
  ceiling: number | null;
  ceiling_at_ms: number | null;
  cut_at_ms: number | null;
}): StoredRate {
  const n = (v: number | string | null) => (v === null ? null : Number(v));
  return { rate: Number(row.rate), ceiling: n(row.ceiling), ceilingAt: n(row.ceiling_at_ms), cutAt: n(row.cut_at_ms) };
}

function fromRate(s: StoredRate) {
  return { rate: s.rate, ceiling: s.ceiling, ceiling_at_ms: s.ceilingAt, cut_at_ms: s.cutAt };
}
