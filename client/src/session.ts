import { CustodyApiError } from './errors.ts';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

export interface SessionOptions {
  clientId: string;
  clientSecret: string;
  /** Posts a form to /v1/oauth/token and returns the parsed answer (or throws CustodyApiError). */
  requestToken(form: Record<string, string>): Promise<TokenPair>;
  now(): number;
  /** Refresh this long before the access token expires. */
  marginMs?: number;
  /** Told of every new token pair (a CLI keeps the access token between invocations). */
  onTokens?: (pair: TokenPair, expiresAt: number) => void;
}

/** An access token kept from an earlier session (no refresh token: a rotated one must have one holder only). */
export interface StoredAccessToken {
  access_token: string;
  /** Epoch milliseconds. */
  expires_at: number;
}

/**
 * Service tokens kept in memory only: a client-credentials sign-in, then refresh-token rotation (each refresh
 * returns a new refresh token; the old one is dead). Concurrent callers share one sign-in or refresh.
 */
export class Session {
  private pair: TokenPair | undefined;
  private expiresAt = 0;
  private pending: Promise<string> | undefined;
  private readonly opts: SessionOptions;

  constructor(opts: SessionOptions) {
    this.opts = opts;
  }

  get signedIn(): boolean {
    return this.pair !== undefined;
  }

  /** The current refresh token (for tests and diagnostics; never persisted by the client). */
  get refreshToken(): string | undefined {
    return this.pair?.refresh_token;
  }

  /** Starts from an access token kept earlier; used until it nears expiry or is refused, then a fresh sign-in. */
  restore(token: StoredAccessToken): void {
    this.pair = { access_token: token.access_token, refresh_token: '', expires_in: 0 };
    this.expiresAt = token.expires_at;
  }

  signIn(): Promise<string> {
    return this.once(() => this.grant({ grant_type: 'client_credentials' }));
  }

  /** A valid access token: signs in or refreshes first when there is none or it is about to expire. */
  accessToken(): Promise<string> {
    if (this.pair && this.opts.now() < this.expiresAt - (this.opts.marginMs ?? 30_000))
      return Promise.resolve(this.pair.access_token);
    return this.renew();
  }

  /** Rotates the refresh token; signs in again when there is none or the service refuses it (revoked family). */
  renew(): Promise<string> {
    return this.once(async () => {
      const refresh = this.pair?.refresh_token;
      if (!refresh) return this.grant({ grant_type: 'client_credentials' });
      try {
        return await this.grant({ grant_type: 'refresh_token', refresh_token: refresh });
      } catch (err) {
        if (!(err instanceof CustodyApiError) || (err.status !== 400 && err.status !== 401)) throw err;
        return this.grant({ grant_type: 'client_credentials' });
      }
    });
  }

  signOut(): void {
    this.pair = undefined;
    this.expiresAt = 0;
  }

  private async grant(form: Record<string, string>): Promise<string> {
    const pair = await this.opts.requestToken({
      ...form,
      client_id: this.opts.clientId,
      client_secret: this.opts.clientSecret,
    });
    this.pair = pair;
    this.expiresAt = this.opts.now() + pair.expires_in * 1000;
    this.opts.onTokens?.(pair, this.expiresAt);
    return pair.access_token;
  }

  private once(fn: () => Promise<string>): Promise<string> {
    this.pending ??= fn().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }
}
