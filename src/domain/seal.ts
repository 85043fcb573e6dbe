import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * AES-256-GCM sealing of provider grants at rest. The sealed form is `v1.<iv>.<tag>.<ciphertext>` in base64url;
 * the key comes from CUSTODY_SECRET_KEY or a generated key file (mode 0600) under DATA_DIR.
 */
export interface Sealer {
  seal(value: unknown): string;
  open<T = unknown>(sealed: string): T;
  /** HMAC-SHA256 under a subkey: signs OAuth state. */
  sign(data: string): string;
}

export function createSealer(keyMaterial: string | Buffer): Sealer {
  const master = typeof keyMaterial === 'string' ? Buffer.from(keyMaterial, 'utf8') : keyMaterial;
  const derive = (label: string) => Buffer.from(crypto.hkdfSync('sha256', master, Buffer.alloc(0), label, 32));
  const encKey = derive('custody/seal/v1');
  const macKey = derive('custody/sign/v1');
  return {
    seal(value) {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', encKey, iv);
      const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.');
    },
    open<T>(sealed: string): T {
      const [v, iv, tag, body] = sealed.split('.');
      if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('sealed value has an unknown format');
      const decipher = crypto.createDecipheriv('aes-256-gcm', encKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as T;
    },
    sign(data) {
      return crypto.createHmac('sha256', macKey).update(data).digest('base64url');
    },
  };
}

/** The key from the environment, else the key file under dataDir, created (0600) on first boot. */
export function loadSealer(opts: { secretKey?: string; dataDir: string }): Sealer {
  if (opts.secretKey) return createSealer(opts.secretKey);
  const file = path.join(opts.dataDir, 'secret.key');
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, crypto.randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return createSealer(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64'));
}

export function sha256Hex(value: string): string {
  return crypto.hash('sha256', value, 'hex');
}

export function randomToken(bytes = 32): string {
  return crypto.randomBytes(bytes).toString('base64url');
}

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}
