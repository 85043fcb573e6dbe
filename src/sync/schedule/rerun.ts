// When a collection's next scheduled run is due. A collection that learns of changes by polling (a connector's
// event mode `polling`, e.g. a OneDrive app without the subscription permission) is synced at its polling
// interval: the scheduled run is its poll. Never later than SYNC_INTERVAL_MINUTES.
import type { Connector } from '../../connectors/types.ts';
import type { CollectionRow } from '../../store/collections.ts';
import type { ProviderSessions } from '../providers/provider-session.ts';

export function rerunMinutes(
  connector: Pick<Connector, 'eventMode'> | undefined,
  grantInfo: Record<string, unknown> | undefined,
  filters: unknown,
  intervalMinutes: number,
): number {
  if (!connector?.eventMode || !grantInfo) return intervalMinutes;
  const mode = connector.eventMode(grantInfo, filters);
  if (mode.event_mode !== 'polling' || !mode.polling_interval_minutes || mode.polling_interval_minutes <= 0)
    return intervalMinutes;
  return Math.min(intervalMinutes, mode.polling_interval_minutes);
}

/**
 * The same, for a run whose provider session is not at hand (the last unit of a fanned-out run): reads the
 * grant's non-secret facts. Called before the transaction that ends the run, never inside it.
 */
export async function rerunMinutesOf(
  deps: {
    connectors: { get(type: string): Connector | undefined };
    sessions: Pick<ProviderSessions, 'credentials'>;
    intervalMinutes: number;
  },
  collection: Pick<CollectionRow, 'type' | 'wallet_id' | 'sync_filters' | 'type_sync'> | undefined,
): Promise<number> {
  const connector = collection && deps.connectors.get(collection.type);
  if (!collection || !connector?.eventMode || collection.sync_filters === null || collection.type_sync === 'one')
    return deps.intervalMinutes;
  const grantInfo = await deps.sessions.credentials.grantInfo(collection.wallet_id).catch(() => undefined);
  return rerunMinutes(connector, grantInfo, JSON.parse(collection.sync_filters) as unknown, deps.intervalMinutes);
}
