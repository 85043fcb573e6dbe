import type { App } from '../../app.ts';
import audit from './audit/index.ts';
import collections from './collections/index.ts';
import webConsole from './console/index.ts';
import discovery from './discovery/index.ts';
import exportRoutes from './exports/index.ts';
import items from './items/index.ts';
import legalhold from './legalhold/index.ts';
import oauth from './oauth/index.ts';
import pairing from './pairing/index.ts';
import search from './search/index.ts';
import system from './system/index.ts';
import wallets from './wallets/index.ts';
import webhookEndpoints from './webhook-endpoints/index.ts';
import webhooks from './webhooks/index.ts';
import workspaces from './workspaces/index.ts';

/** Every route, by area; each area's index.ts lists its one-file-per-operation handlers. */
export async function registerRoutes(app: App): Promise<void> {
  for (const area of [
    system,
    oauth,
    workspaces,
    wallets,
    collections,
    pairing,
    discovery,
    items,
    exportRoutes,
    search,
    legalhold,
    audit,
    webhooks,
    webhookEndpoints,
    webConsole,
  ])
    area(app);
}
