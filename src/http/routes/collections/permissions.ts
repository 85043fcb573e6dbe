import type { App } from '../../../app.ts';
import type { Connector, PermissionGap } from '../../../connectors/types.ts';
import { EventRepo } from '../../../store/events.ts';

/**
 * Permissions the filters need that the collection's paired grant lacks (read from the grant's non-secret facts;
 * no provider request). [] when unpaired, when the connector cannot tell, or when nothing is missing.
 */
export async function permissionGaps(
  app: App,
  collection: { id: string; wallet_id: string },
  connector: Connector,
  filters: unknown,
): Promise<PermissionGap[]> {
  if (!connector.missingPermissions || connector.validateFilters(filters).length > 0) return [];
  const wallet = await app.ctx.repos.wallets.getById(collection.wallet_id);
  if (!wallet?.sealed_grant) return [];
  const ctx = await app.ctx.providers.open(collection, connector);
  return connector.missingPermissions(ctx.grantInfo, filters) ?? [];
}

/** The collection view's `missing_scopes` (and the `collection.scopes_missing` event's, without pointer and message). */
export function missingScopesView(gaps: PermissionGap[]) {
  return gaps.map((g) => ({ scope: g.permission, feature: g.feature, pointer: g.pointer, message: g.message }));
}

/**
 * Right after a pairing: when the new grant lacks scopes the collection's saved filters use, says so on the
 * collection's event stream (`collection.scopes_missing`). Returns the gaps.
 */
export async function announceScopeGaps(
  app: App,
  collection: { id: string; wallet_id: string; account_id: string; sync_filters: string | null },
  connector: Connector,
): Promise<PermissionGap[]> {
  if (collection.sync_filters === null) return [];
  const gaps = await permissionGaps(app, collection, connector, JSON.parse(collection.sync_filters));
  if (gaps.length === 0) return gaps;
  await new EventRepo(app.ctx.db).append({
    accountId: collection.account_id,
    collectionId: collection.id,
    type: 'collection.scopes_missing',
    data: {
      collection_id: collection.id,
      missing_scopes: gaps.map((g) => ({ scope: g.permission, feature: g.feature })),
    },
  });
  return gaps;
}
