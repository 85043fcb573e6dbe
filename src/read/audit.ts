import type { AppContext } from '../context.ts';
import { notFound } from '../domain/errors.ts';

/** The account's audit log and the verification of its chains. */
export function createAuditReads(deps: Pick<AppContext, 'db' | 'repos'>) {
  const { audit } = deps.repos;

  /**
   * Whether the caller may see a collection's chain: the collection is the caller's, or, once it is deleted, its
   * chain holds an entry of the caller's account (the trail outlives the collection).
   */
  const audited = async (accountId: string, collectionId: string): Promise<boolean> => {
    const c = await deps.db
      .selectFrom('collections')
      .select('account_id')
      .where('id', '=', collectionId)
      .executeTakeFirst();
    if (c) return c.account_id === accountId;
    const chain = `collection:${collectionId}`;
    return Boolean(await audit.head(chain)) && (await audit.chain(chain)).some((e) => e.account_id === accountId);
  };

  return {
    list(accountId: string, q: { cursor?: string; limit: number; action?: string; target?: string }) {
      return audit.list(accountId, q);
    },

    /** Every chain of the account, or one collection's (404 when the caller may not see it). */
    async verify(accountId: string, collectionId: string | undefined) {
      if (collectionId && !(await audited(accountId, collectionId))) throw notFound('Collection');
      return audit.verify(accountId, collectionId);
    },
  };
}
