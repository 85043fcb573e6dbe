import { createHash, randomBytes } from 'node:crypto';

// The OAuth state of the sandbox: authorization codes, grants, access/refresh/download tokens.

const CODE_TTL_MS = 5 * 60_000; // "The OAuth code expires in 5 minutes"
const REFRESH_TTL_MS = 90 * 86_400_000; // ~90 days is common; Zoom treats it as changeable

export interface GrantOptions {
  clientId: string;
  clientSecret: string;
  accessTokenTtlSeconds: number;
  scopes: string[];
  ownerId: () => string;
  now: () => Date;
}

export interface TokenSet {
  access_token: string;
  token_type: 'bearer';
  refresh_token?: string;
  expires_in: number;
  scope: string;
}

/** Zoom's token-endpoint error body: `{reason, error}`, unlike the API's `{code, message}`. */
export interface OAuthFailure {
  status: number;
  error: string;
  reason: string;
}

interface Grant {
  id: string;
  userId: string;
  scopes: string[];
  revoked: boolean;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  expiresAt: number;
}

interface Issued {
  grant: Grant;
  expiresAt: number;
}

export type AccessCheck = { ok: true; userId: string; scopes: string[] } | { ok: false; message: string };

export class GrantStore {
  private readonly codes = new Map<string, PendingCode>();
  private readonly access = new Map<string, Issued>();
  private readonly refresh = new Map<string, Issued>();
  private readonly download = new Map<string, Issued>();
  private readonly grants: Grant[] = [];

  constructor(private readonly o: GrantOptions) {}

  get clientId(): string {
    return this.o.clientId;
  }

  checkClient(authorization: string | undefined): OAuthFailure | undefined {
    const match = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
    if (!match) return { status: 400, error: 'invalid_request', reason: 'client id/secret or grant type missing' };
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const id = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    if (colon < 0 || id !== this.o.clientId || secret !== this.o.clientSecret) {
      return { status: 401, error: 'invalid_client', reason: 'Invalid client_id or client_secret' };
    }
    return undefined;
  }

  issueCode(clientId: string, redirectUri: string, challenge: string | undefined): string {
    const code = token(24);
    this.codes.set(code, { clientId, redirectUri, challenge, expiresAt: this.nowMs() + CODE_TTL_MS });
    return code;
  }

  redeemCode(code: string, redirectUri: string, verifier: string | undefined): TokenSet | OAuthFailure {
    const pending = this.codes.get(code);
    if (!pending) return { status: 400, error: 'invalid_grant', reason: 'Invalid authorization code' };
    this.codes.delete(code); // single use, whatever the outcome
    if (pending.expiresAt <= this.nowMs()) return { status: 400, error: 'invalid_grant', reason: 'Code is expired' };
    if (pending.redirectUri !== redirectUri)
      return { status: 400, error: 'invalid_request', reason: 'Redirect URI mismatch.' };
    if (pending.challenge !== undefined) {
      const computed = verifier ? createHash('sha256').update(verifier).digest('base64url') : '';
      if (computed !== pending.challenge)
        return { status: 400, error: 'invalid_grant', reason: 'Invalid code_verifier' };
    }
    const grant: Grant = { id: token(8), userId: this.o.ownerId(), scopes: [...this.o.scopes], revoked: false };
    this.grants.push(grant);
    return this.issue(grant, true);
  }

  /** Rotation: the presented refresh token dies; the answer carries its replacement. */
  refreshGrant(refreshToken: string): TokenSet | OAuthFailure {
    const issued = this.refresh.get(refreshToken);
    this.refresh.delete(refreshToken);
    if (!issued || issued.grant.revoked || issued.expiresAt <= this.nowMs()) {
      return { status: 400, error: 'invalid_grant', reason: 'Invalid Token!' };
    }
    return this.issue(issued.grant, true);
  }

  /** Server-to-Server OAuth: a fresh access token, no refresh token; several may be live at once. */
  accountCredentials(): TokenSet {
    const grant: Grant = { id: token(8), userId: this.o.ownerId(), scopes: [...this.o.scopes], revoked: false };
    this.grants.push(grant);
    return this.issue(grant, false);
  }

  checkAccess(accessToken: string): AccessCheck {
    const issued = this.access.get(accessToken);
    if (!issued || issued.grant.revoked) return { ok: false, message: 'Invalid access token.' };
    if (issued.expiresAt <= this.nowMs()) return { ok: false, message: 'Access token is expired.' };
    return { ok: true, userId: issued.grant.userId, scopes: issued.grant.scopes };
  }

  /** `download_access_token` from GET /meetings/{id}/recordings?include_fields=download_access_token&ttl=… */
  issueDownloadToken(forAccessToken: string, ttlSeconds: number): string | undefined {
    const issued = this.access.get(forAccessToken);
    if (!issued) return undefined;
    const value = jwtLike(ttlSeconds);
    this.download.set(value, { grant: issued.grant, expiresAt: this.nowMs() + ttlSeconds * 1000 });
    return value;
  }

  /** Download URLs accept either an API access token or a download access token as the bearer. */
  checkDownload(bearer: string): AccessCheck {
    const issued = this.download.get(bearer);
    if (!issued) return this.checkAccess(bearer);
    if (issued.grant.revoked || issued.expiresAt <= this.nowMs())
      return { ok: false, message: 'Invalid access token.' };
    return { ok: true, userId: issued.grant.userId, scopes: issued.grant.scopes };
  }

  /**
   * `POST /oauth/revoke`: an access or a refresh token ends its whole authorization (every token issued for it,
   * download tokens included). False for a token this store never issued or already revoked.
   */
  revokeToken(value: string): boolean {
    const issued = this.access.get(value) ?? this.refresh.get(value);
    if (!issued || issued.grant.revoked) return false;
    issued.grant.revoked = true;
    return true;
  }

  revokeAll(): void {
    for (const grant of this.grants) grant.revoked = true;
  }

  private issue(grant: Grant, withRefresh: boolean): TokenSet {
    const ttl = this.o.accessTokenTtlSeconds;
    const accessToken = jwtLike(ttl);
    this.access.set(accessToken, { grant, expiresAt: this.nowMs() + ttl * 1000 });
    const set: TokenSet = {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: ttl,
      scope: grant.scopes.join(' '),
    };
    if (withRefresh) {
      const refreshToken = jwtLike(REFRESH_TTL_MS / 1000);
      this.refresh.set(refreshToken, { grant, expiresAt: this.nowMs() + REFRESH_TTL_MS });
      set.refresh_token = refreshToken;
    }
    return set;
  }

  private nowMs(): number {
    return this.o.now().getTime();
  }
}

function token(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/** Zoom's tokens look like JWTs; clients must treat them as opaque. */
function jwtLike(ttlSeconds: number): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS512', v: '2.0', kid: token(6) })).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ ver: 10, jti: token(12), ttl: ttlSeconds })).toString('base64url');
  return `${header}.${payload}.${token(32)}`;
}
