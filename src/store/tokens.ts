import { compiledOnce } from './compiled.ts';
import { changeStamp, whileUnchanged } from './direct.ts';
import type { CoreTables } from './schema.ts';
import type { Executor } from './transaction.ts';

export type TokenRow = CoreTables['service_tokens'];

/** Service access and refresh tokens, stored only as SHA-256 hashes. */
export class TokenRepo {
  constructor(private readonly db: Executor) {}

  /** The database's change stamp (store/direct.ts), read once per request and passed to the reads it makes. */
  changeStamp(): number | undefined {
    return changeStamp(this.db);
  }

  async insert(rows: TokenRow[]): Promise<void> {
    await this.db.insertInto('service_tokens').values(rows).execute();
  }

  async find(tokenHash: string): Promise<TokenRow | undefined> {
    return this.db.selectFrom('service_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /**
   * The token with its client's revocation time: a revoked client's tokens stop working at once. Read on every
   * authenticated request, so on SQLite the row is kept while the database is unchanged (store/direct.ts): any
   * write, by this process or another, is seen by the next call. `stamp`: the request's own look at the database
   * (whileUnchanged).
   */
  async findWithClient(
    tokenHash: string,
    stamp?: number,
  ): Promise<Readonly<TokenRow & { client_revoked_at: string | null }> | undefined> {
    return findWithClientCached(this.db, tokenHash, stamp);
  }

  /** Marks a refresh token used; false when it was already used (a replay) or revoked. Atomic. */
  async markUsed(tokenHash: string, at: string): Promise<boolean> {
    const res = await this.db
      .updateTable('service_tokens')
      .set({ used_at: at })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async revokeFamily(familyId: string, at: string): Promise<void> {
    await this.db
      .updateTable('service_tokens')
      .set({ revoked_at: at })
      .where('family_id', '=', familyId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  async deleteExpired(before: string): Promise<void> {
    await this.db.deleteFrom('service_tokens').where('expires_at', '<', before).execute();
  }
}

// every authenticated request runs this one
const findWithClientCached = whileUnchanged(
  async (db: Executor, tokenHash: string) => (await findWithClient(db, tokenHash))[0],
);
const findWithClient = compiledOnce((db: Executor, tokenHash: string) =>
  db
    .selectFrom('service_tokens')
    .innerJoin('api_clients', 'api_clients.id', 'service_tokens.client_id')
    .selectAll('service_tokens')
    .select('api_clients.revoked_at as client_revoked_at')
    .where('service_tokens.token_hash', '=', tokenHash),
);
