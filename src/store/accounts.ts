import { newId, nowIso } from './ids.ts';
import type { Executor } from './transaction.ts';

/** Accounts (tenants), their API clients and their redirect allowlist. */
export class AccountRepo {
  constructor(private readonly db: Executor) {}

  async ensureAccount(name: string): Promise<string> {
    const existing = await this.db.selectFrom('accounts').select('id').where('name', '=', name).executeTakeFirst();
    if (existing) return existing.id;
    const id = newId('acc');
    await this.db
      .insertInto('accounts')
      .values({ id, name, created_at: nowIso() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db.selectFrom('accounts').select('id').where('name', '=', name).executeTakeFirstOrThrow();
    return row.id;
  }

  async findAccountByName(name: string) {
    return this.db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
  }

  async allowRedirect(accountId: string, url: string): Promise<void> {
    await this.db
      .insertInto('redirect_allowlist')
      .values({ account_id: accountId, url, created_at: nowIso() })
      .onConflict((oc) => oc.columns(['account_id', 'url']).doNothing())
      .execute();
  }

  async isRedirectAllowed(accountId: string, url: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('redirect_allowlist')
      .select('url')
      .where('account_id', '=', accountId)
      .where('url', '=', url)
      .executeTakeFirst();
    return Boolean(row);
  }

  async createClient(accountId: string, secretHash: string): Promise<string> {
    const id = newId('cli');
    await this.db
      .insertInto('api_clients')
      .values({ id, account_id: accountId, secret_hash: secretHash, created_at: nowIso(), revoked_at: null })
      .execute();
    return id;
  }

  async findClient(clientId: string) {
    return this.db.selectFrom('api_clients').selectAll().where('id', '=', clientId).executeTakeFirst();
  }

  /** Revokes the client and every token it was issued. Returns false for an unknown client. */
  async revokeClient(clientId: string): Promise<boolean> {
    const at = nowIso();
    const res = await this.db
      .updateTable('api_clients')
      .set({ revoked_at: at })
      .where('id', '=', clientId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    await this.db
      .updateTable('service_tokens')
      .set({ revoked_at: at })
      .where('client_id', '=', clientId)
      .where('revoked_at', 'is', null)
      .execute();
    if (Number(res.numUpdatedRows) > 0) return true;
    return Boolean(await this.findClient(clientId));
  }
}
