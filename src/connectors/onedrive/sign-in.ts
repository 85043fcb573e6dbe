// Step one of edrive pairing: sign the administrator in with the authorization code flow (reference §1.1,
// §1.3) to learn, from a verified id_token, which tenant they belong to and that they may consent for it.
import { type ProviderHttp } from '../../provider/provider-http.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import { ProviderAuthError } from '../types.ts';
import { IdTokenError, unverifiedClaims, verifyRs256, type Jwk, type JwtClaims } from './id-token.ts';
import { aadSummary, TENANT_ID } from './identity.ts';

/** `openid` for the id_token and `profile` for its tid/oid; no Graph scope, no refresh token. */
export const SIGN_IN_SCOPE = 'openid profile';

/**
 * Built-in directory roles (role template ids, the same in every tenant) that can grant tenant-wide admin consent
 * to Microsoft Graph application permissions. Application and Cloud Application Administrators cannot grant
 * Graph app roles, and custom roles never appear in `wids`.
 */
export const CONSENT_ROLE_TEMPLATES: ReadonlyMap<string, string> = new Map([
  ['62e90394-69f5-4237-9190-012177145e10', 'Global Administrator'],
  ['e8611ab8-c189-46e8-94e1-60213ab1f814', 'Privileged Role Administrator'],
]);

const CLOCK_SKEW_SECONDS = 300;

export interface SignInOptions {
  clientId: string;
  clientSecret: string;
  loginUrl: string;
  http: ProviderHttp;
  now?: () => Date;
}

export interface SignedInAdmin {
  tenantId: string;
}

export class MicrosoftSignIn {
  constructor(private readonly opts: SignInOptions) {}

  /** `organizations`: the admin's tenant is not known yet, and personal accounts cannot consent. */
  authorizeUrl(input: { state: string; redirectUri: string; codeChallenge: string }): string {
    const query = new URLSearchParams({
      client_id: this.opts.clientId,
      response_type: 'code',
      redirect_uri: input.redirectUri,
      response_mode: 'query',
      scope: SIGN_IN_SCOPE,
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
    });
    return `${this.opts.loginUrl}/organizations/oauth2/v2.0/authorize?${query.toString()}`;
  }

  /**
   * Redeems the code over the back channel (PKCE-bound to this flow's state) and verifies the id_token against
   * the JWKS of the tenant it names, so neither the browser nor a forged redirect can choose the tenant.
   */
  async signedInAdmin(input: {
    query: Record<string, string | undefined>;
    redirectUri: string;
    codeVerifier: string;
  }): Promise<SignedInAdmin> {
    const code = input.query.code;
    if (!code)
      throw new ProviderAuthError(
        'invalid_request',
        'Microsoft sent no authorization code: the administrator must sign in first. Start the authorization again.',
      );
    const idToken = await this.redeem(code, input.redirectUri, input.codeVerifier);
    let claims: JwtClaims;
    try {
      claims = await this.verify(idToken);
    } catch (error) {
      if (error instanceof IdTokenError)
        throw new ProviderAuthError(
          'invalid_request',
          `The Microsoft sign-in could not be verified: ${error.message}.`,
        );
      throw error;
    }
    requireConsentRole(claims);
    return { tenantId: String(claims.tid).toLowerCase() };
  }

  private async redeem(code: string, redirectUri: string, codeVerifier: string): Promise<string> {
    let body: { id_token?: unknown };
    try {
      body = await this.opts.http.json<{ id_token?: unknown }>(
        `${this.opts.loginUrl}/organizations/oauth2/v2.0/token`,
        {
          method: 'POST',
          auth: false,
          signal: AbortSignal.timeout(LOGIN_HOST_DEADLINE_MS),
          form: {
            client_id: this.opts.clientId,
            client_secret: this.opts.clientSecret,
            grant_type: 'authorization_code',
            code,
            redirect_uri: redirectUri,
            code_verifier: codeVerifier,
            scope: SIGN_IN_SCOPE,
          },
        },
      );
    } catch (error) {
      // A refused code (expired, reused, wrong verifier) is the user's to retry; a refused client secret is ours.
      if (
        error instanceof ProviderError &&
        error.status !== undefined &&
        error.status < 500 &&
        error.providerCode !== 'invalid_client'
      ) {
        throw new ProviderAuthError(
          'invalid_grant',
          `Microsoft refused the sign-in (${aadSummary(error)}): start the authorization again.`,
        );
      }
      throw error;
    }
    if (typeof body?.id_token !== 'string' || body.id_token === '') {
      throw new ProviderError('the token endpoint answered without an id_token', {
        code: 'invalid_response',
        retryable: false,
      });
    }
    return body.id_token;
  }

  private async verify(idToken: string): Promise<JwtClaims> {
    const tid = unverifiedClaims(idToken).tid;
    if (typeof tid !== 'string' || !TENANT_ID.test(tid)) throw new IdTokenError('it names no tenant id');
    // Keys and issuer come from the configured login host, for the tenant the token names; the signature and
    // issuer checks below then bind the token to that tenant. Pairing is rare enough not to cache them.
    const meta = await this.opts.http.json<{ issuer?: unknown; jwks_uri?: unknown }>(
      `${this.opts.loginUrl}/${encodeURIComponent(tid)}/v2.0/.well-known/openid-configuration`,
      { auth: false, signal: AbortSignal.timeout(LOGIN_HOST_DEADLINE_MS) },
    );
    if (typeof meta?.issuer !== 'string' || typeof meta.jwks_uri !== 'string') {
      throw new ProviderError('the OpenID metadata has no issuer or jwks_uri', {
        code: 'invalid_response',
        retryable: false,
      });
    }
    // The signing keys must come from the configured login host too, whatever the metadata says.
    if (!sameOrigin(meta.jwks_uri, this.opts.loginUrl)) {
      throw new ProviderError('the OpenID metadata points its jwks_uri away from the login host', {
        code: 'invalid_response',
        retryable: false,
      });
    }
    const jwks = await this.opts.http.json<{ keys?: unknown }>(meta.jwks_uri, {
      auth: false,
      signal: AbortSignal.timeout(LOGIN_HOST_DEADLINE_MS),
    });
    if (!Array.isArray(jwks?.keys))
      throw new ProviderError('the JWKS has no keys', { code: 'invalid_response', retryable: false });
    const claims = await verifyRs256(idToken, jwks.keys as Jwk[]);

    const issuer = meta.issuer.replace('{tenantid}', tid);
    if (claims.iss !== issuer) throw new IdTokenError('its issuer is not the tenant it names');
    if (claims.aud !== this.opts.clientId) throw new IdTokenError('it was issued to another application');
    const now = (this.opts.now ?? (() => new Date()))().getTime() / 1000;
    if (typeof claims.exp !== 'number' || claims.exp < now - CLOCK_SKEW_SECONDS)
      throw new IdTokenError('it has expired');
    if (typeof claims.nbf === 'number' && claims.nbf > now + CLOCK_SKEW_SECONDS)
      throw new IdTokenError('it is not valid yet');
    return claims;
  }
}

/**
 * Anyone in a tenant can sign in, but only these roles can consent for it; without this check any member of a
 * tenant whose admin once consented could pair that tenant to their own Custody account.
 */
function requireConsentRole(claims: JwtClaims): void {
  const wids = claims.wids;
  if (!Array.isArray(wids)) {
    throw new ProviderAuthError(
      'access_denied',
      "Microsoft's sign-in did not list the user's directory roles (no wids claim): set groupMembershipClaims to \"DirectoryRole\" in the Custody app registration's manifest.",
    );
  }
  if (!wids.some((w) => typeof w === 'string' && CONSENT_ROLE_TEMPLATES.has(w.toLowerCase()))) {
    throw new ProviderAuthError(
      'access_denied',
      `The signed-in user is not a ${[...CONSENT_ROLE_TEMPLATES.values()].join(' or ')} of their tenant: only they can grant Custody tenant-wide access.`,
    );
  }
}

/** The browser waits on the callback while these calls run: bound them. */
const LOGIN_HOST_DEADLINE_MS = 20_000;

function sameOrigin(url: string, base: string): boolean {
  try {
    return new URL(url).origin === new URL(base).origin;
  } catch {
    return false;
  }
}
