import { sql } from 'kysely';
import { compiledOnce } from './compiled.ts';
import { newId, nowIso } from './ids.ts';
import { keysetPage } from './paging.ts';
import { atomically, type Executor } from './transaction.ts';

export class WalletRepo {
  constructor(private readonly db: Executor) {}

  async create(
    accountId: string,
    input: { name: string; credential_type_name: string; config_type: string },
  ): Promise<string> {
    const id = newId('wal');
    await this.db
      .insertInto('wallets')
      .values({ id, account_id: accountId, ...input, sealed_grant: null, paired_at: null, created_at: nowIso() })
      .execute();
    return id;
  }

  async get(accountId: string, id: string) {
    return this.db
      .selectFrom('wallets')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
  }

  /** The account's wallets, oldest first; the sealed grant is never selected, only whether there is one. */
  async list(accountId: string, opts: { cursor?: string; limit: number }) {
    return keysetPage(
      this.db
        .selectFrom('wallets')
        .select(['id', 'name', 'credential_type_name', 'config_type', 'paired_at', 'created_at'])
        .select(sql<number | boolean>`sealed_grant is not null`.as('has_grant'))
        .where('account_id', '=', accountId),
      opts,
    );
  }

  /**
   * Deletes a wallet no collection uses, with its grant. Returns the collections that still use it (nothing is
   * deleted then), or null when the account has no such wallet. The check and the delete share one transaction;
   * the foreign key of collections.wallet_id refuses a collection bound to it meanwhile.
   */
  async delete(accountId: string, id: string): Promise<{ users: Array<{ id: string; deleting: boolean }> } | null> {
    return atomically(this.db, async (trx) => {
      const wallet = await trx
        .selectFrom('wallets')
        .select('id')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (!wallet) return null;
      const users = await trx
        .selectFrom('collections')
        .select(['id', 'deleting_at'])
        .where('wallet_id', '=', id)
        .orderBy('id')
        .execute();
      if (users.length > 0) return { users: users.map((u) => ({ id: u.id, deleting: u.deleting_at !== null })) };
      await trx.deleteFrom('credential_refresh_locks').where('wallet_id', '=', id).execute();
      await trx.deleteFrom('wallets').where('id', '=', id).execute();
      return { users: [] };
    });
  }

  async getById(id: string) {
    return (await getWallet(this.db, id))[0];
  }

  /** Replaces the grant (pairing); `providerAccountId` is the provider account it belongs to (routes webhooks). */
  async setGrant(id: string, sealedGrant: string, providerAccountId?: string | null): Promise<void> {
    await this.db
      .updateTable('wallets')
      .set((eb) => ({
        sealed_grant: sealedGrant,
        paired_at: nowIso(),
        grant_version: eb('grant_version', '+', 1),
        ...(providerAccountId !== undefined && { provider_account_id: providerAccountId }),
      }))
      .where('id', '=', id)
      .execute();
  }

  /**
   * Compare-and-swap of a refreshed grant: succeeds only if nobody replaced the grant since `version` was read.
   * This is what makes token refresh single-flight across processes.
   */
  async swapGrant(id: string, version: number, sealedGrant: string): Promise<boolean> {
    const res = await this.db
      .updateTable('wallets')
      .set({ sealed_grant: sealedGrant, grant_version: version + 1 })
      .where('id', '=', id)
      .where('grant_version', '=', version)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Paired wallets of a configuration type whose provider account is `providerAccountId`, or not yet known. */
  async pairedFor(configType: string, providerAccountId: string) {
    return this.db
      .selectFrom('wallets')
      .select(['id', 'sealed_grant', 'provider_account_id'])
      .where('config_type', '=', configType)
      .where('sealed_grant', 'is not', null)
      .where((eb) => eb.or([eb('provider_account_id', '=', providerAccountId), eb('provider_account_id', 'is', null)]))
      .execute();
  }

  /** The provider account the wallet is paired with; null when not recorded, undefined when no such wallet. */
  async providerAccount(id: string): Promise<string | null | undefined> {
    const row = await this.db
      .selectFrom('wallets')
      .select('provider_account_id')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.provider_account_id;
  }

  async setProviderAccount(id: string, providerAccountId: string): Promise<void> {
    await this.db.updateTable('wallets').set({ provider_account_id: providerAccountId }).where('id', '=', id).execute();
  }
}

// read by every GET of a collection (is it paired?)
const getWallet = compiledOnce((db: Executor, id: string) => db.selectFrom('wallets').selectAll().where('id', '=', id));
