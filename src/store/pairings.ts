import type { Executor } from './transaction.ts';

/**
 * The two short-lived records of the pairing flow: the nonce of each OAuth state handed to a provider
 * (oauth_states) and each pending pairing waiting for pair_credentials (pairings). Both are single use, and
 * "use" is one conditional UPDATE so that two concurrent requests can never both succeed.
 */
export class PairingRepo {
  constructor(private readonly db: Executor) {}

  async recordState(input: { nonceHash: string; accountId: string; type: string; expiresAt: string }): Promise<void> {
    await this.db
      .insertInto('oauth_states')
      .values({
        nonce_hash: input.nonceHash,
        account_id: input.accountId,
        type: input.type,
        expires_at: input.expiresAt,
        used_at: null,
      })
      .execute();
  }

  /** Marks the state used; false when it is unknown, of another account or type, expired or already used. */
  async useState(input: { nonceHash: string; accountId: string; type: string; now: string }): Promise<boolean> {
    const res = await this.db
      .updateTable('oauth_states')
      .set({ used_at: input.now })
      .where('nonce_hash', '=', input.nonceHash)
      .where('account_id', '=', input.accountId)
      .where('type', '=', input.type)
      .where('expires_at', '>', input.now)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async createPairing(input: {
    codeHash: string;
    accountId: string;
    type: string;
    sealedGrant: string;
    expiresAt: string;
    now: string;
  }): Promise<void> {
    await this.db
      .insertInto('pairings')
      .values({
        code_hash: input.codeHash,
        account_id: input.accountId,
        type: input.type,
        sealed_grant: input.sealedGrant,
        expires_at: input.expiresAt,
        used_at: null,
        created_at: input.now,
      })
      .execute();
  }

  /**
   * Takes the sealed grant of a pending pairing, once. A code of another account or type is left untouched
   * (a guess from elsewhere must not burn it). The consumed row keeps no grant.
   */
  async consumePairing(input: {
    codeHash: string;
    accountId: string;
    type: string;
    now: string;
  }): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('pairings')
      .select('sealed_grant')
      .where('code_hash', '=', input.codeHash)
      .where('account_id', '=', input.accountId)
      .where('type', '=', input.type)
      .where('expires_at', '>', input.now)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    const res = await this.db
      .updateTable('pairings')
      .set({ used_at: input.now, sealed_grant: '' })
      .where('code_hash', '=', input.codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    // Someone else consumed it between the read and the update.
    return Number(res.numUpdatedRows) === 1 ? row.sealed_grant : undefined;
  }

  /** Drops states and pairings that expired before `before`. */
  async purgeExpired(before: string): Promise<void> {
    await this.db.deleteFrom('oauth_states').where('expires_at', '<', before).execute();
    await this.db.deleteFrom('pairings').where('expires_at', '<', before).execute();
  }
}
