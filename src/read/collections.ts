import type { AppContext } from '../context.ts';
import type { Connector, PermissionGap } from '../connectors/types.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { CollectionRow } from '../store/collections.ts';
import type { CollectionWithRun } from '../store/collection-with-run.ts';

export type { CollectionRow, CollectionWithRun };

export type CollectionReadDeps = Pick<AppContext, 'repos' | 'connectors' | 'providers'>;

/** The collection type's connector; a collection of a type this server has no connector for answers 409. */
export function connectorOf(deps: Pick<AppContext, 'connectors'>, type: string): Connector {
  const connector = deps.connectors.get(type);
  if (!connector) throw new DomainError('no_connector', `Collection type ${type} has no connector on this server.`);
  return connector;
}

/** The collection view's facts: the row with its latest run, and what the grant says about the saved filters. */
export interface CollectionFacts extends CollectionWithRun {
  missingScopes?: PermissionGap[];
  eventMode?: object;
}

export function createCollectionReads(deps: CollectionReadDeps) {
  /** The caller's collection (another account's id answers 404 like an unknown one); its connector if registered. */
  const own = async (accountId: string, id: string) => {
    const collection = await deps.repos.collections.get(accountId, id);
    if (!collection) throw notFound('Collection');
    return { collection, connector: deps.connectors.get(collection.type) };
  };

  return {
    own,

    /** As own, and 409 when the collection's type has no connector here. */
    async load(accountId: string, id: string): Promise<{ collection: CollectionRow; connector: Connector }> {
      const { collection } = await own(accountId, id);
      return { collection, connector: connectorOf(deps, collection.type) };
    },

    list(
      accountId: string,
      q: { workspaceId?: string; type?: string; status?: string; cursor?: string; limit: number },
    ) {
      return deps.repos.collections.list(accountId, q);
    },

    async listOfWorkspace(accountId: string, workspaceId: string, page: { cursor?: string; limit: number }) {
      if (!(await deps.repos.workspaces.get(accountId, workspaceId))) throw notFound('Workspace');
      return deps.repos.collections.listByWorkspace(accountId, workspaceId, page);
    },

    /**
     * The collection and its latest run in one statement (a run that reads as finished has committed, and the same
     * snapshot shows the status that run left), and, when paired, the scopes the saved filters use that the grant
     * lacks and the connector's event mode, from the grant's facts (no provider request).
     */
    async detail(accountId: string, id: string, dbStamp?: number): Promise<CollectionFacts> {
      const found = await deps.repos.collections.getWithPairing(accountId, id, dbStamp);
      if (!found) throw notFound('Collection');
      const connector = connectorOf(deps, found.collection.type);
      const { collection, paired } = found;
      if (!paired || (!connector.eventMode && !connector.missingPermissions)) return found;
      const ctx = await deps.providers.open(collection, connector);
      const filters = collection.sync_filters ? (JSON.parse(collection.sync_filters) as unknown) : null;
      const facts: CollectionFacts = { ...found };
      if (connector.missingPermissions && filters !== null && connector.validateFilters(filters).length === 0) {
        const gaps = connector.missingPermissions(ctx.grantInfo, filters);
        if (gaps) facts.missingScopes = gaps;
      }
      if (connector.eventMode) facts.eventMode = connector.eventMode(ctx.grantInfo, filters ?? {});
      return facts;
    },
  };
}

export type CollectionReads = ReturnType<typeof createCollectionReads>;
