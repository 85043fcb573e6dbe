import crypto from 'node:crypto';
import type { JWK } from 'jose';

/**
 * A compact JWS with a detached payload (RFC 7515 Appendix F): `<protected>..<signature>`. The signing input is the
 * protected header, `.`, and the base64url of the exact payload bytes (`b64` is not used). Protected header exactly
 * `{"alg":"EdDSA","kid":…}`.
 */
export async function signDetached(
  payload: Buffer,
  key: { kid: string; privateKey: crypto.KeyObject },
): Promise<string> {
  const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: key.kid })).toString('base64url');
  const input = Buffer.from(`${header}.${payload.toString('base64url')}`, 'ascii');
  const signature = crypto.sign(null, input, key.privateKey);
  return `${header}..${signature.toString('base64url')}`;
}

export type DetachedCheck = { ok: true; kid: string } | { ok: false; reason: string };

/** Checks a detached JWS over `payload` with a key of `jwks` named by its `kid`: never with a key from elsewhere. */
export async function verifyDetached(jws: string, payload: Buffer, jwks: { keys: JWK[] }): Promise<DetachedCheck> {
  const parts = jws.trim().split('.');
  if (parts.length !== 3 || parts[1] !== '')
    return { ok: false, reason: 'manifest.jws is not a compact JWS with a detached payload' };
  let header: { alg?: unknown; kid?: unknown };
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as typeof header;
  } catch {
    return { ok: false, reason: 'manifest.jws has an unreadable protected header' };
  }
  const names = Object.keys(header).sort().join(',');
  if (header.alg !== 'EdDSA' || typeof header.kid !== 'string' || names !== 'alg,kid')
    return { ok: false, reason: 'manifest.jws protected header is not {"alg":"EdDSA","kid":…}' };
  const jwk = jwks.keys.find((k) => k.kid === header.kid);
  if (!jwk) return { ok: false, reason: `no key with kid ${header.kid} in the given keys` };
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519')
    return { ok: false, reason: `key ${header.kid} is not an Ed25519 key` };
  const key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  const input = Buffer.from(`${parts[0]}.${payload.toString('base64url')}`, 'ascii');
  const ok = crypto.verify(null, input, key, Buffer.from(parts[2], 'base64url'));
  return ok ? { ok: true, kid: header.kid } : { ok: false, reason: 'the signature over manifest.json does not verify' };
}
