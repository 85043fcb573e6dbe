import type { App } from '../../../app.ts';
import type { Connector, PermissionGap } from '../../../connectors/types.ts';
import { permissionGaps as gaps } from '../../../sync/readiness.ts';

/** sync/readiness.ts permissionGaps, with this process's database and provider sessions. */
export function permissionGaps(
  app: App,
  collection: { id: string; wallet_id: string },
  connector: Connector,
  filters: unknown,
): Promise<PermissionGap[]> {
  return gaps({ db: app.ctx.db, sessions: app.ctx.providers }, collection, connector, filters);
}
