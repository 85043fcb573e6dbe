import type { ReadSide } from '../read/index.ts';
import { createAccountService } from './account.ts';
import { createCollectionService } from './collections.ts';
import type { ServiceDeps } from './deps.ts';
import { createExportService } from './exports.ts';
import { createHoldService } from './holds.ts';
import { createPairingService } from './pairing.ts';
import { createProviderInbox } from './provider-inbox.ts';

/**
 * The write services the routes call (`ctx.services`): one call per request, each loading the caller's own
 * resource (404 otherwise) and deciding through the engine or a repository. Throws DomainErrors only.
 */
export function createServices(deps: ServiceDeps, reads: ReadSide) {
  return {
    collections: createCollectionService(deps, reads),
    pairing: createPairingService(deps, reads),
    exports: createExportService(deps, reads),
    holds: createHoldService(deps),
    account: createAccountService(deps),
    providerInbox: createProviderInbox(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
