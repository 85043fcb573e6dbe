import { sql, type Selectable } from 'kysely';
import { compiledOnce } from './compiled.ts';
import { dialectOf, type Database } from './db.ts';
import { EventRepo } from './events.ts';
import { newId, nowIso } from './ids.ts';
import { keysetPage } from './paging.ts';
import type { CoreTables } from './schema.ts';
import { collectionWithRun, type CollectionWithRun } from './collection-with-run.ts';
import { ACTIVE_RUN_STATUSES } from '../domain/run-state.ts';
import { syncMove, type SyncEvent, type SyncStatus } from '../domain/sync-state.ts';
import { atomically, type Executor } from './transaction.ts';

export type CollectionRow = Selectable<CoreTables['collections']>;
/** A collection without its filters, and whether it has any (CollectionRepo.getHead). */
export type CollectionHead = Omit<CollectionRow, 'sync_filters'> & { has_filters: boolean };

// every column but the filters (a Record: a column added to the table must be named here)
const HEAD: Record<Exclude<keyof CollectionRow, 'sync_filters'>, true> = {
  id: true,
  account_id: true,
  workspace_id: true,
  wallet_id: true,
  name: true,
  type: true,
  sync_status: true,
  status_reason: true,
  type_sync: true,
  filters_updated_at: true,
  next_sync_at: true,
  rerun_requested_at: true,
  deleting_at: true,
  created_at: true,
  updated_at: true,
};
const HEAD_COLUMNS = Object.keys(HEAD) as Array<keyof typeof HEAD>;

export class CollectionRepo {
  constructor(private readonly db: Executor) {}

  async create(
    accountId: string,
    input: { name: string; workspace_id: string; wallet_id: string; type: string },
  ): Promise<string> {
    const id = newId('col');
    const at = nowIso();
    await this.db
      .insertInto('collections')
      .values({
        id,
        account_id: accountId,
        ...input,
        sync_status: 'created',
        status_reason: null,
        type_sync: 'one',
        sync_filters: null,
        filters_updated_at: null,
        next_sync_at: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    return id;
  }

  /** A collection being deleted (deleting_at set) is not found, here and in getById and listByWorkspace. */
  async get(accountId: string, id: string): Promise<CollectionRow | undefined> {
    return (await getCollection(this.db, accountId, id))[0];
  }

  /**
   * The caller's collection, whether its wallet holds a grant, and its latest run, in one statement (the hot GET
   * of a collection): one snapshot, so a run that reads as finished is seen with the status it left. On SQLite
   * the answer is kept while the database is unchanged (store/direct.ts: exact, any write by any process is seen
   * by the next call; `stamp`: the request's own look at the database). Callers must not mutate it.
   */
  async getWithPairing(accountId: string, id: string, stamp?: number): Promise<CollectionWithRun | undefined> {
    return collectionWithRun(this.db, accountId, id, stamp);
  }

  async getById(id: string): Promise<CollectionRow | undefined> {
    return this.db
      .selectFrom('collections')
      .selectAll()
      .where('id', '=', id)
      .where('deleting_at', 'is', null)
      .executeTakeFirst();
  }

  /**
   * The collection without its filters (a key per custodian: megabytes at 10,000 custodians), and whether it has
   * any: what each unit job of a run reads, while the run's filters are read once per run (execution/unit-memo.ts).
   */
  async getHead(id: string): Promise<CollectionHead | undefined> {
    return (
      this.db
        .selectFrom('collections')
        .select(HEAD_COLUMNS)
        // SQLite reads a value to test it for null, walking the chain of overflow pages of a large one (the filters of
        // 10,000 custodians are a megabyte: 0.2 ms a call); typeof() reads only the row's header
        .select(
          (dialectOf(this.db) === 'sqlite'
            ? sql<boolean>`typeof(sync_filters) <> 'null'`
            : sql<boolean>`sync_filters is not null`
          ).as('has_filters'),
        )
        .where('id', '=', id)
        .where('deleting_at', 'is', null)
        .executeTakeFirst()
        .then((row) => row && { ...row, has_filters: Boolean(row.has_filters) })
    );
  }

  /** The collection's filters as stored; undefined when there is no such collection. */
  async filtersOf(id: string): Promise<string | null | undefined> {
    const row = await this.db.selectFrom('collections').select('sync_filters').where('id', '=', id).executeTakeFirst();
    return row?.sync_filters;
  }

  async listByWorkspace(accountId: string, workspaceId: string, opts: { cursor?: string; limit: number }) {
    return keysetPage(
      this.db
        .selectFrom('collections')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('workspace_id', '=', workspaceId)
        .where('deleting_at', 'is', null),
      opts,
    );
  }

  /** The account's collections, oldest first, optionally of one workspace, type or sync status. */
  async list(
    accountId: string,
    opts: { workspaceId?: string; type?: string; status?: string; cursor?: string; limit: number },
  ) {
    let q = this.db
      .selectFrom('collections')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('deleting_at', 'is', null);
    if (opts.workspaceId !== undefined) q = q.where('workspace_id', '=', opts.workspaceId);
    if (opts.type !== undefined) q = q.where('type', '=', opts.type);
    if (opts.status !== undefined) q = q.where('sync_status', '=', opts.status as SyncStatus);
    return keysetPage(q, opts);
  }

  /** The collection's type_sync, being deleted or not; undefined when there is no such row. */
  async typeSync(id: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('collections').select('type_sync').where('id', '=', id).executeTakeFirst();
    return row?.type_sync;
  }

  /** Live collections whose status promises a run (`pending`, `syncing`) that has none queued or running, in id order. */
  async withoutPromisedRun(limit: number): Promise<Pick<CollectionRow, 'id' | 'sync_status'>[]> {
    return this.db
      .selectFrom('collections as c')
      .select(['c.id', 'c.sync_status'])
      .where('c.sync_status', 'in', ['pending', 'syncing'])
      .where('c.deleting_at', 'is', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('runs as r')
              .select('r.id')
              .whereRef('r.collection_id', '=', 'c.id')
              .where('r.status', 'in', [...ACTIVE_RUN_STATUSES]),
          ),
        ),
      )
      .orderBy('c.id')
      .limit(limit)
      .execute();
  }

  /**
   * Moves a `syncing` collection that has no active run to `failed` or `error` (compare-and-swap: a run queued
   * meanwhile wins). A move to `error` appends `collection.error` to the event outbox in the same transaction.
   * Returns whether it moved.
   */
  async failWithoutRun(
    id: string,
    event: 'fail' | 'error',
    patch: { status_reason: string; next_sync_at: string | null; updated_at: string },
  ): Promise<boolean> {
    const move = syncMove(event);
    return atomically(this.db, async (trx) => {
      const row = await trx
        .updateTable('collections')
        // a follow-up asked for during the lost run is moot: the retry planned here is that run
        .set({ ...patch, sync_status: move.to, rerun_requested_at: null })
        .where('id', '=', id)
        .where('sync_status', 'in', move.from)
        .where('deleting_at', 'is', null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('runs')
                .select('runs.id')
                .where('runs.collection_id', '=', id)
                .where('runs.status', 'in', [...ACTIVE_RUN_STATUSES]),
            ),
          ),
        )
        .returning(['account_id'])
        .executeTakeFirst();
      if (row && move.to === 'error') await appendCollectionError(trx, row.account_id, id, patch.status_reason);
      return row !== undefined;
    });
  }

  /** Collections whose deletion started but did not finish (a process stopped midway). */
  async deletingIds(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('collections')
      .select('id')
      .where('deleting_at', 'is not', null)
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /** Every collection of the workspace, those being deleted too; of the account when one is given. */
  async idsByWorkspace(workspaceId: string, accountId?: string): Promise<string[]> {
    let q = this.db.selectFrom('collections').select('id').where('workspace_id', '=', workspaceId);
    if (accountId !== undefined) q = q.where('account_id', '=', accountId);
    const rows = await q.execute();
    return rows.map((r) => r.id);
  }

  async update(
    id: string,
    patch: Partial<
      Pick<CollectionRow, 'sync_filters' | 'filters_updated_at' | 'type_sync' | 'next_sync_at' | 'status_reason'>
    >,
  ): Promise<void> {
    await this.db
      .updateTable('collections')
      .set({ ...patch, updated_at: nowIso() })
      .where('id', '=', id)
      .execute();
  }

  /**
   * `sync_status: pending` while a run is active: noted, for the run's end to queue a follow-up. False when the
   * collection is neither `syncing` nor `pending` (a run just starting is claimed while the collection is still
   * `pending`) any more: the run ended meanwhile, and the caller queues a run the usual way.
   */
  async requestRerun(id: string, at: string): Promise<boolean> {
    const res = await this.db
      .updateTable('collections')
      .set({ rerun_requested_at: at })
      .where('id', '=', id)
      .where('sync_status', 'in', ['syncing', 'pending'])
      .where('deleting_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Clears a follow-up request; true when there was one (the ending run's transaction then honours it). */
  async takeRerunRequest(id: string): Promise<boolean> {
    const row = await this.db
      .updateTable('collections')
      .set({ rerun_requested_at: null })
      .where('id', '=', id)
      .where('rerun_requested_at', 'is not', null)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Inside a transaction that queues or starts a run: whether the collection still exists and is not being
   * deleted. A no-op write, so that it takes the row lock on PostgreSQL (which waits for a deletion marking the
   * row, sync/deletion/deletion.ts) and the write lock on SQLite: a deletion either sees the run and cancels it, or the
   * run is refused.
   */
  async lockLive(id: string): Promise<boolean> {
    const res = await this.db
      .updateTable('collections')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', id)
      .where('deleting_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * Applies `event` through the state table (domain/sync-state.ts): a compare-and-swap from the statuses the table
   * allows it from, or from `opts.from` only (which the table must allow). A move to `error` appends
   * `collection.error` to the event outbox with it. False when the collection was in no such status (or is being
   * deleted). The only way sync_status changes after a collection is created.
   */
  async transition(
    id: string,
    event: SyncEvent,
    opts: { from?: SyncStatus; reason?: string | null } = {},
  ): Promise<boolean> {
    const move = syncMove(event);
    if (opts.from !== undefined && !move.from.includes(opts.from))
      throw new Error(`the state table has no "${event}" from "${opts.from}"`);
    const from = opts.from === undefined ? move.from : [opts.from];
    const reason = opts.reason ?? null;
    if (move.to === 'error' && !this.db.isTransaction)
      return this.db.transaction().execute((trx) => new CollectionRepo(trx).transition(id, event, opts));
    const row = await this.db
      .updateTable('collections')
      .set({ sync_status: move.to, status_reason: reason, updated_at: nowIso() })
      .where('id', '=', id)
      .where('sync_status', 'in', from)
      .where('deleting_at', 'is', null)
      .returning(['id', 'account_id'])
      .executeTakeFirst();
    if (row && move.to === 'error') await appendCollectionError(this.db, row.account_id, id, reason);
    return row !== undefined;
  }

  /**
   * Starts the deletion of collections (sync/deletion/deletion.ts): those not being deleted already, of the account when
   * one is given. Returns the ids it marked.
   */
  async markDeleting(ids: string[], accountId?: string): Promise<string[]> {
    if (ids.length === 0) return [];
    let q = this.db
      .updateTable('collections')
      .set({ deleting_at: nowIso() })
      .where('id', 'in', ids)
      .where('deleting_at', 'is', null);
    if (accountId !== undefined) q = q.where('account_id', '=', accountId);
    const rows = await q.returning('id').execute();
    return rows.map((r) => r.id);
  }

  /**
   * Collections whose next sync is due at `now`: `auto`/`arch` ones that are synced, and failed ones with a retry
   * planned. The scheduler queues each with a compare-and-swap, so a collection listed twice is queued once.
   */
  async dueForSync(now: string, limit: number): Promise<{ id: string; sync_status: string }[]> {
    return this.db
      .selectFrom('collections')
      .select(['id', 'sync_status'])
      .where('deleting_at', 'is', null)
      .where((eb) =>
        eb.and([
          eb.or([eb('next_sync_at', 'is', null), eb('next_sync_at', '<=', now)]),
          eb.or([
            eb.and([eb('sync_status', '=', 'synced'), eb('type_sync', 'in', ['auto', 'arch'])]),
            eb.and([eb('sync_status', '=', 'failed'), eb('next_sync_at', 'is not', null)]),
          ]),
        ]),
      )
      .limit(limit)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('collections').where('id', '=', id).execute();
  }
}

/** `collection.error`: the collection needs a person (pair again, grant a scope, start it again). */
export async function appendCollectionError(
  db: Database,
  accountId: string,
  collectionId: string,
  reason: string | null,
): Promise<void> {
  await new EventRepo(db).append({
    accountId,
    collectionId,
    type: 'collection.error',
    data: { collection_id: collectionId, reason: reason ?? 'the collection needs attention' },
  });
}
// every collection route starts with this one
const getCollection = compiledOnce((db: Executor, accountId: string, id: string) =>
  db
    .selectFrom('collections')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleting_at', 'is', null),
);
