import type { AppContext } from '../../../context.ts';

/** The caller's collection (another account's id answers 404 like an unknown one); its connector if registered. */
export function ownCollection(ctx: Pick<AppContext, 'reads'>, accountId: string, id: string) {
  return ctx.reads.collections.own(accountId, id);
}
