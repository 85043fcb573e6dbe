import type { Selectable } from 'kysely';
import type { ExportTables } from './schema-exports.ts';
import type { Executor } from './transaction.ts';
import { releasedLease } from './lease-times.ts';

export type ExportRow = Selectable<ExportTables['exports']>;

/** Production exports (issue 24): a job row leased by the worker writing the package. */
export class ExportRepo {
  constructor(private readonly db: Executor) {}

  async create(row: {
    id: string;
    account_id: string;
    collection_id: string;
    options: string;
    created_at: string;
  }): Promise<ExportRow> {
    return this.db
      .insertInto('exports')
      .values({
        ...row,
        status: 'queued',
        attempt: 0,
        started_at: null,
        finished_at: null,
        lease_owner: null,
        lease_expires_at: null,
        counts: null,
        bytes: null,
        sha256: null,
        error: null,
        audit_seq: null,
        audit_hash: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  get(id: string): Promise<ExportRow | undefined> {
    return this.db.selectFrom('exports').selectAll().where('id', '=', id).executeTakeFirst();
  }

  listForCollection(collectionId: string, limit = 200): Promise<ExportRow[]> {
    return this.db
      .selectFrom('exports')
      .selectAll()
      .where('collection_id', '=', collectionId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Queued exports, and running ones whose worker stopped renewing the lease (restarted from the beginning). */
  async claimable(now: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('exports')
      .select('id')
      .where((eb) =>
        eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<', now)])]),
      )
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Compare-and-swap: one worker gets the export. */
  claim(id: string, owner: string, now: string, until: string): Promise<ExportRow | undefined> {
    return this.db
      .updateTable('exports')
      .set((eb) => ({
        status: 'running',
        lease_owner: owner,
        lease_expires_at: until,
        started_at: now,
        attempt: eb('attempt', '+', 1),
      }))
      .where('id', '=', id)
      .where((eb) =>
        eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<', now)])]),
      )
      .returningAll()
      .executeTakeFirst();
  }

  async heartbeat(id: string, owner: string, until: string): Promise<boolean> {
    const r = await this.db
      .updateTable('exports')
      .set({ lease_expires_at: until })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Lets another attempt take the export over at once (it stopped without progress, or its process shut down), if
   * `attempt` (the claim's) still holds it. `uncount`: stopped by a shutdown, not by the work: the attempt its claim
   * counted is given back.
   */
  async releaseLease(id: string, owner: string, now: string, attempt: number, uncount = false): Promise<void> {
    await this.db
      .updateTable('exports')
      .set(releasedLease(now, uncount))
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('attempt', '=', attempt)
      .where('status', '=', 'running')
      .execute();
  }

  /**
   * Ends the export if this owner still holds it (a cancel committed meanwhile wins); with `attempt`, only that
   * attempt (one given up after a stall must not end the attempt that took it over in the same process).
   */
  async finish(
    id: string,
    owner: string,
    fields: Partial<
      Pick<ExportRow, 'status' | 'finished_at' | 'counts' | 'bytes' | 'sha256' | 'error' | 'audit_seq' | 'audit_hash'>
    >,
    attempt?: number,
  ): Promise<boolean> {
    let update = this.db
      .updateTable('exports')
      .set({ ...fields, lease_owner: null, lease_expires_at: null })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running');
    if (attempt !== undefined) update = update.where('attempt', '=', attempt);
    const r = await update.executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async cancel(id: string, at: string): Promise<boolean> {
    const r = await this.db
      .updateTable('exports')
      .set({ status: 'cancelled', finished_at: at, lease_owner: null, lease_expires_at: null })
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Running exports of a collection (this process stops writing them before they are deleted). */
  async activeIds(collectionId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('exports')
      .select('id')
      .where('collection_id', '=', collectionId)
      .where('status', 'in', ['queued', 'running'])
      .execute();
    return rows.map((r) => r.id);
  }

  /** Deletes a batch of a collection's exports; returns the package blobs the deleted rows referenced. */
  async deleteBatch(collectionId: string, limit: number): Promise<{ count: number; shas: string[] }> {
    const ids = await this.db
      .selectFrom('exports')
      .select('id')
      .where('collection_id', '=', collectionId)
      .limit(limit)
      .execute();
    if (ids.length === 0) return { count: 0, shas: [] };
    // Only what this statement deleted is released: a concurrent purge of the same collection releases the rest.
    const gone = await this.db
      .deleteFrom('exports')
      .where(
        'id',
        'in',
        ids.map((r) => r.id),
      )
      .returning(['sha256', 'status'])
      .execute();
    return {
      count: gone.length,
      shas: gone.filter((r) => r.status === 'succeeded' && r.sha256).map((r) => r.sha256!),
    };
  }
}
