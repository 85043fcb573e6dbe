import type { AppContext } from '../context.ts';
import type { DiscoveryKind } from '../connectors/types.ts';
import { conflict, invalidInput } from '../domain/errors.ts';
import type { CollectionReads } from './collections.ts';

export const UNPAIRED =
  'the collection has no paired credentials: get an authorization_url, consent, then call pair_credentials.';

/**
 * GET /collections/{id}/{users,channels,folders}: the caller's collection, a connector that offers this kind,
 * paired credentials, then the connector's handler. Provider failures pass as they are (http/ says what they mean).
 */
export function createDiscoveryReads(
  deps: Pick<AppContext, 'repos' | 'connectors' | 'providers'>,
  collections: CollectionReads,
) {
  return {
    async page(
      accountId: string,
      collectionId: string,
      kind: DiscoveryKind,
      query: Record<string, string | undefined>,
      signal: AbortSignal,
    ): Promise<unknown> {
      const { collection, connector } = await collections.load(accountId, collectionId);
      const handler = connector.discovery[kind];
      if (!handler) {
        const offering = deps.connectors.types().filter((t) => deps.connectors.get(t)?.discovery[kind]);
        throw invalidInput(
          offering.length > 0
            ? `${kind} are available for ${offering.join(' and ')} collections only.`
            : `${kind} are not available for any collection type on this server.`,
        );
      }
      const wallet = await deps.repos.wallets.getById(collection.wallet_id);
      if (!wallet?.sealed_grant) throw conflict('credentials', UNPAIRED);
      const pctx = await deps.providers.open(collection, connector, { signal });
      return handler(pctx, query);
    },
  };
}
