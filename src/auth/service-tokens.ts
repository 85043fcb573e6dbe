import crypto from 'node:crypto';
import { randomToken, safeEqual, sha256Hex } from '../domain/seal.ts';
import type { AccountRepo } from '../store/accounts.ts';
import type { TokenRepo } from '../store/tokens.ts';

/** RFC 6749 §5.2 error: rendered as {error, error_description} by the token route. */
export class OAuthError extends Error {
  constructor(
    public status: 400 | 401,
    public error: string,
    description: string,
  ) {
    super(description);
  }
}

export interface TokenPair {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
}

export interface Caller {
  accountId: string;
  clientId: string;
  /** sha256 of the access token: the rate-limit key (never the token itself) */
  tokenKey: string;
  /**
   * The database's change stamp the token was checked at (SQLite; store/direct.ts): the kept reads of a request
   * that writes nothing pass it, so that such a request looks at the database's change counters once.
   */
  dbStamp?: number;
}

export interface ServiceTokens {
  clientCredentials(clientId: string, clientSecret: string): Promise<TokenPair>;
  refresh(clientId: string, clientSecret: string, refreshToken: string): Promise<TokenPair>;
  verify(accessToken: string): Promise<Caller | null>;
}

export function hashClientSecret(secret: string): string {
  return sha256Hex(`client-secret:${secret}`);
}

export function createServiceTokens(deps: {
  accounts: AccountRepo;
  tokens: TokenRepo;
  ttl: { accessTtlSeconds: number; refreshTtlSeconds: number };
  now?: () => Date;
}): ServiceTokens {
  const now = deps.now ?? (() => new Date());
  const at = (offsetSeconds = 0) => new Date(now().getTime() + offsetSeconds * 1000).toISOString();

  async function authenticateClient(clientId: string, clientSecret: string) {
    const client = clientId ? await deps.accounts.findClient(clientId) : undefined;
    if (!client || client.revoked_at || !safeEqual(client.secret_hash, hashClientSecret(clientSecret ?? ''))) {
      throw new OAuthError(401, 'invalid_client', 'Client authentication failed.');
    }
    return client;
  }

  async function issue(accountId: string, clientId: string, familyId: string): Promise<TokenPair> {
    const access = randomToken();
    const refresh = randomToken();
    const base = {
      account_id: accountId,
      client_id: clientId,
      family_id: familyId,
      created_at: at(),
      used_at: null,
      revoked_at: null,
    };
    await deps.tokens.insert([
      { ...base, token_hash: sha256Hex(access), kind: 'access', expires_at: at(deps.ttl.accessTtlSeconds) },
      { ...base, token_hash: sha256Hex(refresh), kind: 'refresh', expires_at: at(deps.ttl.refreshTtlSeconds) },
    ]);
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: deps.ttl.accessTtlSeconds,
      refresh_token: refresh,
    };
  }

  return {
    async clientCredentials(clientId, clientSecret) {
      const client = await authenticateClient(clientId, clientSecret);
      return issue(client.account_id, client.id, crypto.randomUUID());
    },

    async refresh(clientId, clientSecret, refreshToken) {
      const client = await authenticateClient(clientId, clientSecret);
      const row = refreshToken ? await deps.tokens.findWithClient(sha256Hex(refreshToken)) : undefined;
      const invalid = new OAuthError(400, 'invalid_grant', 'The refresh token is invalid, expired or revoked.');
      if (!row || row.kind !== 'refresh' || row.client_id !== client.id) throw invalid;
      if (row.revoked_at || row.expires_at <= at()) throw invalid;
      if (row.used_at || !(await deps.tokens.markUsed(row.token_hash, at()))) {
        // OAuth 2.0 Security BCP: a rotated refresh token presented again means it leaked; kill the family.
        await deps.tokens.revokeFamily(row.family_id, at());
        throw invalid;
      }
      return issue(row.account_id, row.client_id, row.family_id);
    },

    async verify(accessToken) {
      const hash = sha256Hex(accessToken);
      const dbStamp = deps.tokens.changeStamp();
      const row = await deps.tokens.findWithClient(hash, dbStamp);
      if (!row || row.kind !== 'access' || row.revoked_at || row.client_revoked_at || row.expires_at <= at())
        return null;
      return { accountId: row.account_id, clientId: row.client_id, tokenKey: hash, dbStamp };
    },
  };
}
