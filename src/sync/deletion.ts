import type { Kysely } from 'kysely';
import type { AppContext } from '../context.ts';
import { notFound } from '../domain/errors.ts';
import { nowIso } from '../store/ids.ts';
import { lockCovered } from '../store/holds.ts';
import type { DB } from '../store/schema.ts';

export interface DeletionRequest {
  accountId: string;
  collectionIds: string[];
  workspaceId?: string;
}

/**
 * May refuse a deletion by throwing (a legal hold answers 409). Called once before anything is touched, then
 * again with `trx`, the transaction that marks the collections deleting (under the locks a hold creation takes).
 */
export type DeletionGuard = (req: DeletionRequest, trx?: Kysely<DB>) => Promise<void>;

type Ctx = Pick<AppContext, 'db' | 'engine' | 'repos' | 'deletionGuards'>;

/**
 * Permanent deletion of collections. Deleting is a state: one transaction re-runs the guards under the locks a
 * hold creation takes and sets `deleting_at`, after which every reader treats the collections as gone (404,
 * no runs queued or started, no hold placed). Then each running sync is cancelled and items, runs and
 * unreferenced blobs go. A single collection already being deleted answers 404; a workspace deletion finishes
 * its collections whatever state they are in. A process stopped midway leaves `deleting_at` set, and the engine
 * finishes the deletion at its next start (finishDeletion).
 */
export async function deleteCollections(ctx: Ctx, req: DeletionRequest): Promise<void> {
  for (const guard of ctx.deletionGuards) await guard(req);
  await markDeleting(ctx, req);
  for (const id of req.collectionIds) await finishDeletion(ctx.engine, ctx.repos.collections, id);
}

async function markDeleting(ctx: Ctx, req: DeletionRequest): Promise<void> {
  if (req.collectionIds.length === 0 && !req.workspaceId) return;
  await ctx.db.transaction().execute(async (trx) => {
    await lockCovered(trx, { collectionIds: req.collectionIds, workspaceId: req.workspaceId ?? null });
    // On SQLite the first write takes the database's write lock, which serializes this with createHold.
    if (req.workspaceId) {
      const ws = await trx
        .updateTable('workspaces')
        .set({ deleting_at: nowIso() })
        .where('id', '=', req.workspaceId)
        .where('account_id', '=', req.accountId)
        .where('deleting_at', 'is', null)
        .returning('id')
        .execute();
      if (ws.length === 0) throw notFound('Workspace');
    }
    const marked =
      req.collectionIds.length === 0
        ? []
        : await trx
            .updateTable('collections')
            .set({ deleting_at: nowIso() })
            .where('id', 'in', req.collectionIds)
            .where('account_id', '=', req.accountId)
            .where('deleting_at', 'is', null)
            .returning('id')
            .execute();
    if (!req.workspaceId && marked.length < req.collectionIds.length) throw notFound('Collection');
    for (const guard of ctx.deletionGuards) await guard(req, trx);
  });
}

/**
 * Cancels the collection's runs and purges it, twice: the first cancel stops what was active when the collection
 * was marked; nothing can be queued after the mark, and the second pass removes anything a run wrote in between
 * (run writes are fenced on the run row, which the cancel changes). Then the row goes.
 */
/**
 * The end of a workspace deletion, also run by the engine at start for one a stopped process left behind:
 * collections created in the instant before the workspace was marked are marked and finished too, then the
 * workspace row goes (its audit trail stays: the audit log has no foreign keys).
 */
export async function finishWorkspaceDeletion(
  ctx: { db: Kysely<DB>; engine: Pick<AppContext['engine'], 'purgeCollection'>; collections: Pick<AppContext['repos']['collections'], 'delete'> },
  workspaceId: string,
): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const rest = await ctx.db.selectFrom('collections').select('id').where('workspace_id', '=', workspaceId).execute();
    if (rest.length === 0) break;
    const ids = rest.map((r) => r.id);
    await ctx.db.updateTable('collections').set({ deleting_at: nowIso() }).where('id', 'in', ids).where('deleting_at', 'is', null).execute();
    for (const id of ids) await finishDeletion(ctx.engine, ctx.collections, id);
  }
  await ctx.db.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
}

export async function finishDeletion(
  engine: Pick<AppContext['engine'], 'purgeCollection'>,
  collections: Pick<AppContext['repos']['collections'], 'delete'>,
  collectionId: string,
): Promise<void> {
  await engine.purgeCollection(collectionId);
  await engine.purgeCollection(collectionId);
  await collections.delete(collectionId);
}
