// A Microsoft id_token's signature, checked with jose: compact JWS, RS256 only, keys from the tenant's JWKS.
// The claims (issuer, audience, lifetime) are checked by the caller (sign-in.ts), which knows the tenant.
import { compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, type JWK } from 'jose';

export type Jwk = JWK;
export type JwtClaims = Record<string, unknown>;

export class IdTokenError extends Error {
  override name = 'IdTokenError';
}

/** The claims of a compact JWT without checking anything: only to learn which tenant's keys to fetch. */
export function unverifiedClaims(token: string): JwtClaims {
  try {
    return decodeJwt(token);
  } catch {
    throw new IdTokenError('the id_token is not a compact JWT with a JSON payload');
  }
}

/**
 * Checks an RS256 signature against the JWKS key named by the header's `kid`; returns the claims. Any other
 * algorithm is refused (no `none`, no HMAC with a public key as secret).
 */
export async function verifyRs256(token: string, keys: Jwk[]): Promise<JwtClaims> {
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw new IdTokenError('the id_token is not a compact JWT');
  }
  if (alg !== 'RS256') throw new IdTokenError(`the id_token is signed with ${String(alg)}, not RS256`);
  // Only RSA signing keys: a key published for encryption must not verify a signature.
  const signingKeys = keys.filter((k) => k.kty === 'RSA' && (k.use === undefined || k.use === 'sig'));
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(token, createLocalJWKSet({ keys: signingKeys }), { algorithms: ['RS256'] }));
  } catch (err) {
    throw new IdTokenError(reason(err));
  }
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(payload));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as JwtClaims;
  } catch {
    // fall through
  }
  throw new IdTokenError('the id_token payload is not a JSON object');
}

function reason(err: unknown): string {
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the id_token is not signed with RS256';
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) {
    return 'the id_token was signed with a key the tenant does not publish';
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'the id_token signature does not verify';
  return 'the id_token is not a valid compact JWS';
}
