import type { AppContext } from '../context.ts';
import { ping } from '../store/db.ts';
import { createAccountReads } from './account.ts';
import { createAuditReads } from './audit.ts';
import { createCollectionReads } from './collections.ts';
import { createDiscoveryReads } from './discovery.ts';
import { createEventReads } from './events.ts';
import { createExportReads } from './exports.ts';
import { createItemReads } from './items.ts';
import { createRunReads } from './runs.ts';

/** What the read side needs: the database and repositories, blobs, connectors and provider sessions. */
export type ReadDeps = Pick<AppContext, 'db' | 'repos' | 'blobs' | 'connectors' | 'providers'>;

/**
 * The read side the routes answer from (`ctx.reads`): one call per GET, each checking that what it reads is the
 * caller's (404 otherwise). Throws DomainErrors only.
 */
export function createReadSide(deps: ReadDeps) {
  const collections = createCollectionReads(deps);
  return {
    collections,
    items: createItemReads(deps, collections),
    runs: createRunReads(deps, collections),
    events: createEventReads(deps, collections),
    exports: createExportReads(deps, collections),
    discovery: createDiscoveryReads(deps, collections),
    audit: createAuditReads(deps),
    account: createAccountReads(deps),
    /** Throws when the database does not answer. */
    ping: () => ping(deps.db),
  };
}

export type ReadSide = ReturnType<typeof createReadSide>;
