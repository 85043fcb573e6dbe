import type { AppContext } from '../context.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import { invalidInput } from '../domain/errors.ts';
import type { CollectionReads } from './collections.ts';
import { searchItems, knownKinds, type SearchRequest } from '../search/service.ts';
import { manifestCsv, manifestJson } from './manifest.ts';
import { createSyncQueries, type StoredContent } from './queries.ts';

/** Every kind the registered connectors produce. */
function allKinds(connectors: ConnectorRegistry): string[] {
  return [...new Set(connectors.types().flatMap((t) => connectors.get(t)?.kinds ?? []))];
}

/** The items of the caller's collection: each read checks the collection is the caller's (404 otherwise) first. */
export function createItemReads(deps: Pick<AppContext, 'db' | 'blobs' | 'connectors'>, collections: CollectionReads) {
  const queries = createSyncQueries(deps);
  return {
    async list(
      accountId: string,
      collectionId: string,
      q: { cursor?: string; limit: number; kind?: string; custodian?: string },
    ) {
      const { collection, connector } = await collections.own(accountId, collectionId);
      // A collection whose type has no connector on this server is still readable: any registered kind goes.
      const allowed = connector ? [...connector.kinds] : allKinds(deps.connectors);
      if (q.kind && !allowed.includes(q.kind))
        throw invalidInput(`kind must be one of ${allowed.join(', ')} for a ${collection.type} collection.`, 'kind');
      return queries.listItems(collection.id, q);
    },

    async get(accountId: string, collectionId: string, itemId: string) {
      const { collection } = await collections.own(accountId, collectionId);
      return queries.getItem(collection.id, itemId);
    },

    async content(accountId: string, collectionId: string, itemId: string): Promise<StoredContent> {
      const { collection } = await collections.own(accountId, collectionId);
      return queries.itemContent(collection.id, itemId);
    },

    async versions(accountId: string, collectionId: string, itemId: string) {
      const { collection } = await collections.own(accountId, collectionId);
      return queries.listVersions(collection.id, itemId);
    },

    async versionContent(
      accountId: string,
      collectionId: string,
      itemId: string,
      versionNumber: number,
    ): Promise<StoredContent> {
      const { collection } = await collections.own(accountId, collectionId);
      return queries.versionContent(collection.id, itemId, versionNumber);
    },

    /** The collection's manifest as a stream of text chunks, stamped `now`, and the collection it is of. */
    async manifest(accountId: string, collectionId: string, format: 'json' | 'csv', now: Date) {
      const { collection } = await collections.own(accountId, collectionId);
      const chunks = format === 'csv' ? manifestCsv(deps.db, collection, now) : manifestJson(deps.db, collection, now);
      return { collection, chunks };
    },

    /** A search over the caller's collections (the kinds any registered connector produces may be asked for). */
    search(accountId: string, request: SearchRequest) {
      return searchItems(deps.db, accountId, request, { kinds: knownKinds(deps.connectors) });
    },

    async runs(accountId: string, collectionId: string, q: { cursor?: string; limit: number }) {
      const { collection } = await collections.own(accountId, collectionId);
      return queries.listRuns(collection.id, q);
    },
  };
}
