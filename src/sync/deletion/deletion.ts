import type { Kysely } from 'kysely';
import { notFound } from '../../domain/errors.ts';
import type { CollectionRepo } from '../../store/collections.ts';
import { withTransaction } from '../../store/repos.ts';
import type { WorkspaceRepo } from '../../store/workspaces.ts';
import type { DB } from '../../store/schema.ts';
import type { EngineApi } from '../engine-api.ts';

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

type Purger = Pick<EngineApi, 'purgeCollection'>;
interface CollectionRemover {
  delete(collectionId: string): Promise<unknown>;
}

/** What a deletion needs of the application. */
export interface DeletionDeps {
  db: Kysely<DB>;
  engine: Purger;
  repos: { collections: CollectionRemover };
  deletionGuards: DeletionGuard[];
}

type Ctx = DeletionDeps;

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
  await withTransaction(ctx.db, async (tx, trx) => {
    await tx.holds.lockCovered({ collectionIds: req.collectionIds, workspaceId: req.workspaceId ?? null });
    // On SQLite the first write takes the database's write lock, which serializes this with createHold.
    if (req.workspaceId && !(await tx.workspaces.markDeleting(req.accountId, req.workspaceId)))
      throw notFound('Workspace');
    const marked = await tx.collections.markDeleting(req.collectionIds, req.accountId);
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
  ctx: {
    engine: Purger;
    collections: Pick<CollectionRepo, 'idsByWorkspace' | 'markDeleting' | 'delete'>;
    workspaces: Pick<WorkspaceRepo, 'delete'>;
  },
  workspaceId: string,
): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const ids = await ctx.collections.idsByWorkspace(workspaceId);
    if (ids.length === 0) break;
    await ctx.collections.markDeleting(ids);
    for (const id of ids) await finishDeletion(ctx.engine, ctx.collections, id);
  }
  await ctx.workspaces.delete(workspaceId);
}

export async function finishDeletion(
  engine: Purger,
  collections: CollectionRemover,
  collectionId: string,
): Promise<void> {
  await engine.purgeCollection(collectionId);
  await engine.purgeCollection(collectionId);
  await collections.delete(collectionId);
}
