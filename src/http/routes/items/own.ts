import type { AppContext } from '../../../context.ts';
import { notFound } from '../../../domain/errors.ts';

/** The caller's collection (another account's id answers 404 like an unknown one); its connector if registered. */
export async function ownCollection(ctx: Pick<AppContext, 'repos' | 'connectors'>, accountId: string, id: string) {
  const collection = await ctx.repos.collections.get(accountId, id);
  if (!collection) throw notFound('Collection');
  return { collection, connector: ctx.connectors.get(collection.type) };
}
