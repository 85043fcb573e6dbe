import type { AppContext } from '../../../context.ts';
import type { Connector } from '../../../connectors/types.ts';
import { notFound } from '../../../domain/errors.ts';
import { AppError } from '../../errors.ts';

/** The caller's collection and its connector, or 404 (another account's id answers exactly like an unknown one). */
export async function loadCollection(ctx: AppContext, accountId: string, id: string) {
  const collection = await ctx.repos.collections.get(accountId, id);
  if (!collection) throw notFound('Collection');
  return { collection, connector: connectorFor(ctx, collection.type) };
}

/** loadCollection's checks on a collection read some other way: 404 when absent, 409 without a connector. */
export function requireLoaded<T extends { collection: { type: string } }>(ctx: AppContext, found: T | undefined): T {
  if (!found) throw notFound('Collection');
  connectorFor(ctx, found.collection.type);
  return found;
}

function connectorFor(ctx: AppContext, type: string): Connector {
  const connector = ctx.connectors.get(type);
  if (!connector) throw new AppError(409, `Collection type ${type} has no connector on this server.`);
  return connector;
}
