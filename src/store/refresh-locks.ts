import type { Executor } from './transaction.ts';

/** The cross-process lock of a credential's token refresh (sync/providers/credentials.ts): one row per wallet being refreshed. */
export class RefreshLockRepo {
  constructor(private readonly db: Executor) {}

  async holder(walletId: string): Promise<{ owner: string; expires_at: string } | undefined> {
    return this.db
      .selectFrom('credential_refresh_locks')
      .select(['owner', 'expires_at'])
      .where('wallet_id', '=', walletId)
      .executeTakeFirst();
  }

  /** Takes the lock when nobody holds it, or when its holder's lock expired before `now` (the holder died). */
  async take(walletId: string, owner: string, expiresAt: string, now: string): Promise<boolean> {
    const inserted = await this.db
      .insertInto('credential_refresh_locks')
      .values({ wallet_id: walletId, owner, expires_at: expiresAt })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return true;
    const taken = await this.db
      .updateTable('credential_refresh_locks')
      .set({ owner, expires_at: expiresAt })
      .where('wallet_id', '=', walletId)
      .where('expires_at', '<', now)
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1;
  }

  /** Extends the owner's lock; false when it is no longer theirs. */
  async renew(walletId: string, owner: string, expiresAt: string): Promise<boolean> {
    const res = await this.db
      .updateTable('credential_refresh_locks')
      .set({ expires_at: expiresAt })
      .where('wallet_id', '=', walletId)
      .where('owner', '=', owner)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async release(walletId: string, owner: string): Promise<void> {
    await this.db
      .deleteFrom('credential_refresh_locks')
      .where('wallet_id', '=', walletId)
      .where('owner', '=', owner)
      .execute();
  }
}
