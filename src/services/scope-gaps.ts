import type { Connector, PermissionGap } from '../connectors/types.ts';
import { EventRepo } from '../store/events.ts';
import { permissionGaps as gaps } from '../sync/runs/readiness.ts';
import type { ServiceDeps } from './deps.ts';

/** How a pairing's scope gap starts the collection's `status_reason`. */
export const SCOPE_GAP_REASON = 'The pairing lacks scopes the saved filters use:';

/** sync/runs/readiness.ts permissionGaps, with this process's database and provider sessions. */
export function permissionGaps(
  deps: Pick<ServiceDeps, 'db' | 'providers'>,
  collection: { id: string; wallet_id: string },
  connector: Connector,
  filters: unknown,
): Promise<PermissionGap[]> {
  return gaps({ db: deps.db, sessions: deps.providers }, collection, connector, filters);
}

/**
 * Right after a pairing: when the new grant lacks scopes the collection's saved filters use, says so on the
 * collection's event stream (`collection.scopes_missing`). Returns the gaps.
 */
export async function announceScopeGaps(
  deps: Pick<ServiceDeps, 'db' | 'providers' | 'repos'>,
  collection: {
    id: string;
    wallet_id: string;
    account_id: string;
    sync_filters: string | null;
    sync_status: string;
    status_reason: string | null;
  },
  connector: Connector,
): Promise<PermissionGap[]> {
  if (collection.sync_filters === null) return [];
  const found = await permissionGaps(deps, collection, connector, JSON.parse(collection.sync_filters));
  // `status_reason` says so too, unless the collection is in `error` (that reason stays until its next run); a later
  // pairing without the gap takes the sentence back.
  const said = collection.status_reason?.startsWith(SCOPE_GAP_REASON) ?? false;
  if (collection.sync_status !== 'error' && (found.length > 0 || said))
    await deps.repos.collections.update(collection.id, {
      status_reason: found.length > 0 ? `${SCOPE_GAP_REASON} ${found.map((g) => g.message).join(' ')}` : null,
    });
  if (found.length === 0) return found;
  await new EventRepo(deps.db).append({
    accountId: collection.account_id,
    collectionId: collection.id,
    type: 'collection.scopes_missing',
    data: {
      collection_id: collection.id,
      missing_scopes: found.map((g) => ({ scope: g.permission, feature: g.feature })),
    },
  });
  return found;
}
