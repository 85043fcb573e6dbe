import { createCipheriv, createHash } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Small seeded PRNG (mulberry32) so the demo tenant is identical for the same seed. */
export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, maxInclusive: number): number {
    return min + Math.floor(this.next() * (maxInclusive - min + 1));
  }

  pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.next() * values.length)];
  }

  chars(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  guid(): string {
    const hex = this.chars('0123456789abcdef', 32).split('');
    hex[12] = '4';
    hex[16] = '89ab'[parseInt(hex[16], 16) & 3];
    const s = hex.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }

  /** OneDrive for Business item ids look like 01Y3GAAYZ6BZX3D5FZRJEJXM454S3M6UEN (34 chars). */
  itemId(): string {
    return `01${this.chars(BASE32, 32)}`;
  }

  /** Business drive ids are 'b!' followed by ~64 base64url characters. */
  driveId(): string {
    return `b!${this.chars(BASE64URL, 64)}`;
  }
}

/** Deterministic pseudo-random content for a file (AES-CTR keystream keyed by seed and label). */
export function seededBytes(seed: number, label: string, length: number): Buffer {
  const key = createHash('sha256').update(`${seed}:${label}`).digest();
  const cipher = createCipheriv('aes-128-ctr', key.subarray(0, 16), key.subarray(16, 32));
  return cipher.update(Buffer.alloc(length));
}
