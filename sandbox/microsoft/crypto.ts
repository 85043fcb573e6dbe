import { createHmac, generateKeyPair, randomBytes, sign, timingSafeEqual, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

const generateKeyPairAsync = promisify(generateKeyPair);

export type JwtPayload = Record<string, unknown>;

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/** RS256 signing key (published in JWKS) plus an HMAC key for opaque, tamper-evident sandbox tokens. */
export class SandboxKeys {
  private constructor(
    readonly kid: string,
    private readonly privateKey: KeyObject,
    private readonly publicKey: KeyObject,
    private readonly hmacKey: Buffer,
  ) {}

  static async create(): Promise<SandboxKeys> {
    const { privateKey, publicKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048 });
    return new SandboxKeys(randomBytes(20).toString('base64url'), privateKey, publicKey, randomBytes(32));
  }

  jwks(): { keys: Array<Record<string, unknown>> } {
    const jwk = this.publicKey.export({ format: 'jwk' });
    return { keys: [{ kty: 'RSA', use: 'sig', kid: this.kid, x5t: this.kid, n: jwk.n, e: jwk.e }] };
  }

  signJwt(payload: JwtPayload): string {
    const header = b64url(JSON.stringify({ typ: 'JWT', alg: 'RS256', x5t: this.kid, kid: this.kid }));
    const body = b64url(JSON.stringify(payload));
    const signature = sign('sha256', Buffer.from(`${header}.${body}`), this.privateKey);
    return `${header}.${body}.${b64url(signature)}`;
  }

  /** Returns the payload when the signature is ours, otherwise undefined (expiry is the caller's check). */
  verifyJwt(token: string): JwtPayload | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const ok = verify(
      'sha256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      this.publicKey,
      Buffer.from(parts[2], 'base64url'),
    );
    if (!ok) return undefined;
    try {
      return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as JwtPayload;
    } catch {
      return undefined;
    }
  }

  seal(value: unknown): string {
    const body = b64url(JSON.stringify(value));
    return `${body}.${this.mac(body)}`;
  }

  unseal<T>(token: string): T | undefined {
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1));
    const expected = Buffer.from(this.mac(body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
    } catch {
      return undefined;
    }
  }

  private mac(body: string): string {
    return createHmac('sha256', this.hmacKey).update(body).digest('base64url').slice(0, 27);
  }
}

export function randomToken(prefix: string, bytes = 48): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}
