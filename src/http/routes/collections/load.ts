import type { AppContext } from '../../../context.ts';
import type { Connector } from '../../../connectors/types.ts';
import { AppError, notFound } from '../../../domain/errors.ts';

/** The caller's collection and its connector, or 404 (another account's id answers exactly like an unknown one). */
export async function loadCollection(ctx: AppContext, accountId: string, id: string) {
  const collection = await ctx.repos.collections.get(accountId, id);
  if (!collection) throw notFound('Collection');
  const connector = ctx.connectors.get(collection.type);
  if (!connector) throw new AppError(409, `Collection type ${collection.type} has no connector on this server.`);
  return { collection, connector: connector as Connector };
}
