import type { AppContext } from '../context.ts';

export interface DeletionRequest {
  accountId: string;
  collectionIds: string[];
  workspaceId?: string;
}

/** May refuse a deletion by throwing (a legal hold answers 409). */
export type DeletionGuard = (req: DeletionRequest) => Promise<void>;

/**
 * Permanent deletion of collections: guards first (nothing is touched if one refuses), then each running sync
 * is cancelled before its items, runs and unreferenced blobs go.
 */
export async function deleteCollections(ctx: AppContext, req: DeletionRequest): Promise<void> {
  for (const guard of ctx.deletionGuards) await guard(req);
  for (const id of req.collectionIds) {
    await ctx.engine.cancel(id);
    await ctx.engine.purgeCollection(id);
    await ctx.repos.collections.delete(id);
  }
}
