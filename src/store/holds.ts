import { PostgresAdapter, type Selectable } from 'kysely';
import { conflict, notFound } from '../domain/errors.ts';
import { EventRepo } from './events.ts';
import { newId, nowIso } from './ids.ts';
import { keysetPage } from './paging.ts';
import type { SearchTables } from './schema-search.ts';
import { atomically, type Executor } from './transaction.ts';

export type HoldRow = Selectable<SearchTables['legal_holds']>;
export type Hold = HoldRow & { collection_ids: string[] };

export interface NewHold {
  name: string;
  description: string;
  workspaceId: string | null;
  collectionIds: string[];
  clientId: string;
}

/** What a hold covers: collections (named directly, or through their workspace) or a workspace. */
export interface HoldTarget {
  accountId?: string;
  collectionIds: string[];
  workspaceId?: string;
}

export class HoldRepo {
  constructor(private readonly db: Executor) {}

  /** Places a hold in one transaction (the caller's, or a new one) with its `hold.placed` event. */
  async create(accountId: string, input: NewHold): Promise<string> {
    const id = newId('hold');
    await atomically(this.db, async (trx) => {
      const holds = new HoldRepo(trx);
      await holds.lockCovered(input);
      await trx
        .insertInto('legal_holds')
        .values({
          id,
          account_id: accountId,
          name: input.name,
          description: input.description,
          workspace_id: input.workspaceId,
          created_at: nowIso(),
          created_by_client: input.clientId,
          released_at: null,
          released_by_client: null,
        })
        .execute();
      const unique = [...new Set(input.collectionIds)];
      if (unique.length)
        await trx
          .insertInto('legal_hold_collections')
          .values(unique.map((c) => ({ hold_id: id, collection_id: c })))
          .execute();
      await refuseDeleting(trx, accountId, input.collectionIds);
      await refuseDeletingWorkspace(trx, accountId, input.workspaceId);
      await new EventRepo(trx).append({
        accountId,
        type: 'hold.placed',
        data: { hold_id: id, collection_ids: unique, workspace_id: input.workspaceId },
      });
    });
    return id;
  }

  /** A hold of the account, active or released; undefined for unknown ids and other accounts' holds. */
  async get(accountId: string, id: string): Promise<Hold | undefined> {
    const row = await this.db
      .selectFrom('legal_holds')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row ? (await withCollections(this.db, [row]))[0] : undefined;
  }

  /** The account's holds, oldest first: active and released ones, or only those of `status`. */
  async list(accountId: string, opts: { cursor?: string; limit: number; status?: 'active' | 'released' }) {
    let q = this.db.selectFrom('legal_holds').selectAll().where('account_id', '=', accountId);
    if (opts.status === 'active') q = q.where('released_at', 'is', null);
    if (opts.status === 'released') q = q.where('released_at', 'is not', null);
    const page = await keysetPage(q, opts);
    return { rows: await withCollections(this.db, page.rows), cursor: page.cursor };
  }

  /** Releases an active hold with its `hold.released` event; false when there is none by that id in the account (unknown or already released). */
  async release(accountId: string, id: string, clientId: string): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      const res = await trx
        .updateTable('legal_holds')
        .set({ released_at: nowIso(), released_by_client: clientId })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('released_at', 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return false;
      await new EventRepo(trx).append({ accountId, type: 'hold.released', data: { hold_id: id } });
      return true;
    });
  }

  /**
   * Active holds covering any of these collections (named directly, or through their workspace) or the workspace
   * itself. A workspace hold also covers collections created after it.
   */
  async covering(target: HoldTarget): Promise<HoldRow[]> {
    const { collectionIds, workspaceId } = target;
    if (collectionIds.length === 0 && !workspaceId) return [];
    let q = this.db
      .selectFrom('legal_holds as h')
      .selectAll('h')
      .where('h.released_at', 'is', null)
      .where((eb) => {
        const covers = [];
        if (workspaceId) covers.push(eb('h.workspace_id', '=', workspaceId));
        if (collectionIds.length) {
          covers.push(
            eb(
              'h.id',
              'in',
              eb.selectFrom('legal_hold_collections').select('hold_id').where('collection_id', 'in', collectionIds),
            ),
            eb(
              'h.workspace_id',
              'in',
              eb.selectFrom('collections').select('workspace_id').where('id', 'in', collectionIds),
            ),
          );
        }
        return eb.or(covers);
      });
    if (target.accountId) q = q.where('h.account_id', '=', target.accountId);
    return q.orderBy('h.created_at').orderBy('h.id').execute();
  }

  /** Whether an active hold covers the collection: its content must never be purged (auto sync tombstones only). */
  async isHeld(collectionId: string): Promise<boolean> {
    return (await this.covering({ collectionIds: [collectionId] })).length > 0;
  }

  /**
   * `isHeld` for a transaction (this repository's executor) that is about to give up content (a superseded
   * version, a tombstoned item's blob). On PostgreSQL it first takes a key-share lock on the collection row, which
   * create's row locks conflict with: a hold being created either committed before this check (and is seen) or
   * waits until this transaction is over, so no content is dropped after a hold was acknowledged. On SQLite the
   * caller's transaction already holds the write lock (it starts with a write), which serializes it with create.
   */
  async isHeldLocked(collectionId: string): Promise<boolean> {
    if (isPostgres(this.db))
      await this.db.selectFrom('collections').select('id').where('id', '=', collectionId).forKeyShare().execute();
    return this.isHeld(collectionId);
  }

  /**
   * PostgreSQL, inside a transaction: locks the collections a new hold covers (see isHeldLocked), in id order
   * against deadlocks. sync/deletion/deletion.ts takes the same locks before it marks collections deleting.
   */
  async lockCovered(input: Pick<NewHold, 'collectionIds' | 'workspaceId'>): Promise<void> {
    const trx = this.db;
    if (!isPostgres(trx) || (input.collectionIds.length === 0 && !input.workspaceId)) return;
    // Lock order, the same for a hold and a deletion: the workspace row, then its collections in id order.
    if (input.workspaceId)
      await trx.selectFrom('workspaces').select('id').where('id', '=', input.workspaceId).forUpdate().execute();
    await trx
      .selectFrom('collections')
      .select('id')
      .where((eb) => {
        const covered = [];
        if (input.collectionIds.length > 0) covered.push(eb('id', 'in', input.collectionIds));
        if (input.workspaceId) covered.push(eb('workspace_id', '=', input.workspaceId));
        return eb.or(covered);
      })
      .orderBy('id')
      .forUpdate()
      .execute();
  }
}

async function withCollections(db: Executor, rows: HoldRow[]): Promise<Hold[]> {
  if (rows.length === 0) return [];
  const links = await db
    .selectFrom('legal_hold_collections')
    .select(['hold_id', 'collection_id'])
    .where(
      'hold_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('collection_id')
    .execute();
  return rows.map((r) => ({
    ...r,
    collection_ids: links.filter((l) => l.hold_id === r.id).map((l) => l.collection_id),
  }));
}

/**
 * A collection whose deletion has started is gone: a hold naming it answers 404 like an unknown id (the whole
 * hold is rolled back). Checked under HoldRepo.lockCovered's row locks (PostgreSQL) or the write lock the inserts above
 * took (SQLite), which sync/deletion/deletion.ts takes too before it marks collections deleting.
 */
async function refuseDeleting(trx: Executor, accountId: string, collectionIds: string[]): Promise<void> {
  if (collectionIds.length === 0) return;
  const live = await trx
    .selectFrom('collections')
    .select('id')
    .where('id', 'in', [...new Set(collectionIds)])
    .where('account_id', '=', accountId)
    .where('deleting_at', 'is', null)
    .execute();
  const found = new Set(live.map((r) => r.id));
  const missing = collectionIds.findIndex((c) => !found.has(c));
  if (missing >= 0) throw notFound(`Collection ${collectionIds[missing]}`, `collection_ids/${missing}`);
}

/** A workspace whose deletion has started is gone too: a hold naming it answers 404 (rolled back). */
async function refuseDeletingWorkspace(trx: Executor, accountId: string, workspaceId: string | null): Promise<void> {
  if (!workspaceId) return;
  const live = await trx
    .selectFrom('workspaces')
    .select('id')
    .where('id', '=', workspaceId)
    .where('account_id', '=', accountId)
    .where('deleting_at', 'is', null)
    .executeTakeFirst();
  if (!live) throw notFound('Workspace', 'workspace_id');
}

function isPostgres(ex: Executor): boolean {
  return ex.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * The deletion guard for legal holds (a DeletionGuard of src/sync/deletion/deletion.ts): deleting a collection or a
 * workspace that an active hold covers answers 409 naming the hold, and nothing is deleted. `trx`: the deletion's
 * transaction, which holds lockCovered's locks, so that a hold created concurrently is seen or waits.
 */
export function legalHoldGuard(db: Executor) {
  return async (
    req: { accountId: string; collectionIds: string[]; workspaceId?: string },
    trx: Executor = db,
  ): Promise<void> => {
    const holds = await new HoldRepo(trx).covering(req);
    const hold = holds[0];
    if (!hold) return;
    const what = req.workspaceId ? `workspace ${req.workspaceId}` : `collection ${req.collectionIds.join(', ')}`;
    const others = holds.length > 1 ? ` (and ${holds.length - 1} more hold${holds.length > 2 ? 's' : ''})` : '';
    throw conflict(
      'legal_hold',
      `legal hold "${hold.name}" (${hold.id})${others} covers ${what}; it cannot be deleted until the hold is released (DELETE /v1/legalhold/holds/${hold.id}).`,
    );
  };
}
