import type { FastifyRequest } from 'fastify';
import { OAuthError } from '../../../auth/service-tokens.ts';

export interface TokenForm {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  refresh_token?: string;
}

/** The client's credentials from `Authorization: Basic` (client_secret_basic) or the form (client_secret_post). */
export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** Set when the request itself is unusable (RFC 6749 §5.2 invalid_request); clientId is still known if it could be read. */
  error?: OAuthError;
}

/** RFC 6749 §2.3.1: the id and secret are form-urlencoded before they are joined with ':' and base64-encoded. */
function decodeBasic(value: string): { id: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(value);
  if (!match) return null;
  const text = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  try {
    const form = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: form(text.slice(0, colon)), secret: form(text.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/**
 * Who the client says it is, however it says it: the rate limit and the audit are keyed on this client id. A client
 * must use one method only (RFC 6749 §2.3); a Basic header that cannot be decoded is a malformed request.
 */
export function clientCredentials(req: FastifyRequest, form: TokenForm): ClientCredentials {
  const header = req.headers.authorization;
  if (header === undefined) {
    const method = form.client_id !== undefined || form.client_secret !== undefined ? 'client_secret_post' : 'none';
    return { clientId: form.client_id, clientSecret: form.client_secret, method };
  }
  const basic = decodeBasic(header);
  if (!basic)
    return {
      method: 'none',
      error: new OAuthError(
        400,
        'invalid_request',
        'The Authorization header must be "Basic" with base64(client_id:client_secret).',
      ),
    };
  const found: ClientCredentials = { clientId: basic.id, clientSecret: basic.secret, method: 'client_secret_basic' };
  if (form.client_secret !== undefined || (form.client_id !== undefined && form.client_id !== basic.id)) {
    found.error = new OAuthError(
      400,
      'invalid_request',
      'Use one client authentication method: the Authorization header or client_id/client_secret in the form, not both.',
    );
  }
  return found;
}

/** A form body, as RFC 6749 §3.2 requires of token requests (a charset parameter is allowed). */
export function isForm(req: FastifyRequest): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && /^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(type);
}
