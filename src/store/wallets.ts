import type { Database } from './db.ts';
import { newId, nowIso } from './ids.ts';

export class WalletRepo {
  constructor(private db: Database) {}

  async create(accountId: string, input: { name: string; credential_type_name: string; config_type: string }): Promise<string> {
    const id = newId('wal');
    await this.db
      .insertInto('wallets')
      .values({ id, account_id: accountId, ...input, sealed_grant: null, paired_at: null, created_at: nowIso() })
      .execute();
    return id;
  }

  async get(accountId: string, id: string) {
    return this.db.selectFrom('wallets').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }

  async getById(id: string) {
    return this.db.selectFrom('wallets').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Replaces the grant (pairing). */
  async setGrant(id: string, sealedGrant: string): Promise<void> {
    await this.db
      .updateTable('wallets')
      .set((eb) => ({ sealed_grant: sealedGrant, paired_at: nowIso(), grant_version: eb('grant_version', '+', 1) }))
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
}
