// Just enough JOSE to check a Microsoft id_token: compact JWS, RS256, keys from the tenant's JWKS.
import crypto from 'node:crypto';

export interface Jwk {
  kty?: unknown;
  kid?: unknown;
  use?: unknown;
  n?: unknown;
  e?: unknown;
}

export type JwtClaims = Record<string, unknown>;

export class IdTokenError extends Error {
  override name = 'IdTokenError';
}

/** The claims of a compact JWT without checking anything: only to learn which tenant's keys to fetch. */
export function unverifiedClaims(token: string): JwtClaims {
  const parts = token.split('.');
  if (parts.length !== 3) throw new IdTokenError('the id_token is not a compact JWT');
  return parseSegment(parts[1]!, 'payload');
}

/**
 * Checks an RS256 signature against the JWKS key named by the header's `kid`; returns the claims. Any other
 * algorithm is refused (no `none`, no HMAC with a public key as secret).
 */
export function verifyRs256(token: string, keys: Jwk[]): JwtClaims {
  const parts = token.split('.');
  if (parts.length !== 3) throw new IdTokenError('the id_token is not a compact JWT');
  const [head, body, signature] = parts as [string, string, string];
  const header = parseSegment(head, 'header');
  if (header.alg !== 'RS256') throw new IdTokenError(`the id_token is signed with ${String(header.alg)}, not RS256`);
  const kid = header.kid;
  const jwk = keys.find((k) => k.kty === 'RSA' && k.kid === kid && (k.use === undefined || k.use === 'sig'));
  if (typeof kid !== 'string' || !jwk || typeof jwk.n !== 'string' || typeof jwk.e !== 'string') {
    throw new IdTokenError('the id_token was signed with a key the tenant does not publish');
  }
  const key = crypto.createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
  const valid = crypto.verify('sha256', Buffer.from(`${head}.${body}`, 'ascii'), key, Buffer.from(signature, 'base64url'));
  if (!valid) throw new IdTokenError('the id_token signature does not verify');
  return parseSegment(body, 'payload');
}

function parseSegment(segment: string, what: string): JwtClaims {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as JwtClaims;
  } catch {
    // fall through
  }
  throw new IdTokenError(`the id_token ${what} is not a JSON object`);
}
