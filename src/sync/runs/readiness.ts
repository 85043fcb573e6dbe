// Whether a collection can run: decided here, once, for the engine's start (and the PATCH validation that names
// a missing permission before any run is asked for).
import type { Connector, PermissionGap } from '../../connectors/types.ts';
import type { Database } from '../../store/db.ts';
import { WalletRepo } from '../../store/wallets.ts';
import type { ProviderSessions } from '../providers/provider-session.ts';

/**
 * Permissions the filters need that the collection's paired grant lacks (read from the grant's non-secret facts;
 * no provider request). [] when unpaired, when the connector cannot tell, or when nothing is missing.
 */
export async function permissionGaps(
  deps: { db: Database; sessions: Pick<ProviderSessions, 'open'> },
  collection: { id: string; wallet_id: string },
  connector: Connector,
  filters: unknown,
): Promise<PermissionGap[]> {
  if (!connector.missingPermissions || connector.validateFilters(filters).length > 0) return [];
  const wallet = await new WalletRepo(deps.db).getById(collection.wallet_id);
  if (!wallet?.sealed_grant) return [];
  const ctx = await deps.sessions.open(collection, connector);
  return connector.missingPermissions(ctx.grantInfo, filters) ?? [];
}

/** Why a start is refused (a person must act first), or undefined when the collection can run. */
export async function startRefusal(
  deps: { db: Database; sessions: Pick<ProviderSessions, 'open'> },
  collection: { id: string; wallet_id: string; sync_filters: string | null },
  connector: Connector | undefined,
): Promise<{ code: 'not_ready' | 'credentials'; message: string } | undefined> {
  const missing: string[] = [];
  if (collection.sync_filters === null) missing.push('sync filters (PATCH the collection)');
  const wallet = await new WalletRepo(deps.db).getById(collection.wallet_id);
  if (!wallet?.sealed_grant) missing.push('paired credentials (pair_credentials)');
  if (missing.length) return { code: 'not_ready', message: `cannot start: missing ${missing.join(' and ')}.` };
  if (!connector) return undefined;
  const gap = (await permissionGaps(deps, collection, connector, JSON.parse(collection.sync_filters!)))[0];
  return gap ? { code: 'credentials', message: `cannot start: ${gap.message}.` } : undefined;
}
