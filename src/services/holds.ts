import { conflict, invalidInput, notFound } from '../domain/errors.ts';
import { purgeUnheldTombstones } from '../sync/deletion/purge.ts';
import type { ServiceDeps } from './deps.ts';

/** Legal holds: placed on the caller's collections and/or workspace, and released. */
export function createHoldService(deps: ServiceDeps) {
  const { repos } = deps;
  return {
    async create(
      accountId: string,
      clientId: string,
      input: { name: string; description?: string; collection_ids?: string[]; workspace_id?: string },
    ): Promise<string> {
      const { name, description = '', collection_ids = [], workspace_id } = input;
      if (collection_ids.length === 0 && !workspace_id)
        throw invalidInput('a hold needs collection_ids, workspace_id or both.', 'collection_ids');
      if (workspace_id && !(await repos.workspaces.get(accountId, workspace_id))) {
        throw notFound('Workspace', 'workspace_id');
      }
      for (const [i, id] of collection_ids.entries()) {
        if (!(await repos.collections.get(accountId, id))) {
          throw notFound(`Collection ${id}`, `collection_ids/${i}`);
        }
      }
      return repos.holds.create(accountId, {
        name,
        description,
        workspaceId: workspace_id ?? null,
        collectionIds: collection_ids,
        clientId,
      });
    },

    /**
     * Releases an active hold (409 once released) and purges the content an `auto` collection kept only because
     * of it. The release stands even if a purge fails (`purgeFailed` hears of it): the next auto run of the
     * collection purges what is left.
     */
    async release(
      accountId: string,
      clientId: string,
      id: string,
      purgeFailed: (err: unknown, collectionId: string) => void,
    ): Promise<void> {
      const hold = await repos.holds.get(accountId, id);
      if (!hold) throw notFound('Legal hold');
      const released = () => conflict('hold_released', `legal hold ${hold.id} was released already.`);
      if (hold.released_at !== null) throw released();
      if (!(await repos.holds.release(accountId, id, clientId))) throw released();
      const covered = new Set(hold.collection_ids);
      if (hold.workspace_id) {
        for (const collectionId of await repos.collections.idsByWorkspace(hold.workspace_id, accountId))
          covered.add(collectionId);
      }
      const now = () => new Date().toISOString();
      for (const collectionId of covered) {
        await purgeUnheldTombstones(deps.db, deps.blobs, collectionId, { now }).catch((err: unknown) =>
          purgeFailed(err, collectionId),
        );
      }
    },
  };
}
