// The Microsoft identity platform v2.0 as the connector uses it: tenant-wide admin consent for the tenant the
// administrator signed in to (sign-in.ts), then app-only tokens from the client-credentials grant (reference §1.2, §1.3).
import { type ProviderHttp } from '../../provider/provider-http.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import { ProviderAuthError, type Grant } from '../types.ts';
import { unverifiedClaims } from './id-token.ts';
import { GrantRevokedError } from '../../domain/run-failures.ts';

export const GRAPH_DEFAULT_SCOPE = 'https://graph.microsoft.com/.default';
export const APPLICATION_PERMISSIONS = ['Files.Read.All', 'User.Read.All'];

export const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// AADSTS codes that mean the app can no longer get tokens for that tenant until an admin consents again:
// app not found in the directory (consent removed), tenant not found, consent missing, grant revoked,
// resource principal missing in the tenant.
const CONSENT_GONE = new Set([700016, 90002, 65001, 50173, 500011, 700082, 70008]);

export interface IdentityOptions {
  clientId: string;
  clientSecret: string;
  loginUrl: string;
  http: ProviderHttp;
  now?: () => Date;
}

export interface AppGrant extends Grant {
  tenant_id: string;
  access_token: string;
  expires_at: string;
  /** The application permissions the token's `roles` claim names (read, not verified: Graph verifies it). */
  roles?: string[];
}

interface TokenResponse {
  access_token?: unknown;
  expires_in?: unknown;
  token_type?: unknown;
}

export class MicrosoftIdentity {
  constructor(private readonly opts: IdentityOptions) {}

  /**
   * The v2 admin-consent endpoint of the tenant the administrator signed in to, with the `.default` scope: it
   * asks for exactly the application permissions configured on the app registration (reference §1.2).
   */
  adminConsentUrl(input: { tenant: string; state: string; redirectUri: string }): string {
    const query = new URLSearchParams({
      client_id: this.opts.clientId,
      scope: GRAPH_DEFAULT_SCOPE,
      redirect_uri: input.redirectUri,
      state: input.state,
    });
    return `${this.opts.loginUrl}/${encodeURIComponent(input.tenant)}/v2.0/adminconsent?${query.toString()}`;
  }

  /**
   * The redirect's `tenant` can be forged (reference §1.2). It must be the tenant the administrator signed in to
   * (`signedInTenant`, from the verified id_token, carried in the signed state), and the consent is proven only
   * by a client-credentials token issued for it: a token alone shows that some admin consented at some time.
   */
  async proveConsent(query: Record<string, string | undefined>, signedInTenant: string): Promise<AppGrant> {
    const tenant = query.tenant;
    if (!tenant || !TENANT_ID.test(tenant)) {
      throw new ProviderAuthError('invalid_request', 'The admin-consent redirect carried no valid tenant id.');
    }
    if ((query.admin_consent ?? '').toLowerCase() !== 'true') {
      throw new ProviderAuthError('access_denied', 'Microsoft did not report that the administrator granted consent.');
    }
    if (tenant.toLowerCase() !== signedInTenant.toLowerCase()) {
      throw new ProviderAuthError(
        'access_denied',
        'The consent came back for another tenant than the one the administrator signed in to: start the authorization again.',
      );
    }
    try {
      return await this.appToken(tenant);
    } catch (error) {
      if (isConsentGone(error)) {
        throw new ProviderAuthError(
          'access_denied',
          `The tenant ${tenant} has not granted this application admin consent.`,
        );
      }
      throw error;
    }
  }

  /** A fresh app-only token for the tenant; GrantRevokedError when the tenant no longer consents. */
  async refresh(grant: Grant): Promise<AppGrant> {
    const tenant = grant.tenant_id;
    if (typeof tenant !== 'string' || !TENANT_ID.test(tenant))
      throw new GrantRevokedError('the stored grant names no tenant');
    try {
      return await this.appToken(tenant);
    } catch (error) {
      if (isConsentGone(error))
        throw new GrantRevokedError(`tenant ${tenant} no longer grants this application access (${aadSummary(error)})`);
      throw error;
    }
  }

  private async appToken(tenant: string): Promise<AppGrant> {
    const started = (this.opts.now ?? (() => new Date()))();
    const body = await this.opts.http.json<TokenResponse>(
      `${this.opts.loginUrl}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`,
      {
        method: 'POST',
        auth: false,
        form: {
          client_id: this.opts.clientId,
          client_secret: this.opts.clientSecret,
          scope: GRAPH_DEFAULT_SCOPE,
          grant_type: 'client_credentials',
        },
      },
    );
    const lifetime = Number(body?.expires_in);
    if (typeof body?.access_token !== 'string' || body.access_token === '' || !(lifetime > 0)) {
      throw new ProviderError('the token endpoint answered without an access token or expires_in', {
        code: 'invalid_response',
        retryable: true,
      });
    }
    // Lifetimes are randomized (60-90 min, sometimes hours): only expires_in is authoritative.
    const expiresAt = new Date(started.getTime() + lifetime * 1000).toISOString();
    const roles = rolesOf(body.access_token);
    return {
      tenant_id: tenant.toLowerCase(),
      access_token: body.access_token,
      expires_at: expiresAt,
      ...(roles && { roles }),
    };
  }
}

function aadCodes(error: ProviderError): number[] {
  const codes = (error.body as { error_codes?: unknown } | undefined)?.error_codes;
  return Array.isArray(codes) ? codes.filter((c): c is number => typeof c === 'number') : [];
}

/** Code on the OAuth `error` and the AADSTS numbers, never on the description text. */
export function isConsentGone(error: unknown): boolean {
  if (!(error instanceof ProviderError) || error.status === undefined || error.status >= 500) return false;
  if (aadCodes(error).some((c) => CONSENT_GONE.has(c))) return true;
  const code = String(error.providerCode ?? '');
  return code === 'invalid_grant' || code === 'unauthorized_client' || code === 'invalid_resource';
}

export function aadSummary(error: unknown): string {
  if (!(error instanceof ProviderError)) return 'refused';
  const codes = aadCodes(error);
  return `${String(error.providerCode ?? 'error')}${codes.length > 0 ? ` AADSTS${codes.join(',')}` : ''}`;
}

/** The `roles` claim of an app-only access token; undefined when it is not a readable JWT (treat as opaque then). */
function rolesOf(accessToken: string): string[] | undefined {
  try {
    const roles = unverifiedClaims(accessToken).roles;
    return Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : undefined;
  } catch {
    return undefined;
  }
}
