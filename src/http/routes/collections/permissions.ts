import type { App } from '../../../app.ts';
import type { Connector, PermissionGap } from '../../../connectors/types.ts';

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
