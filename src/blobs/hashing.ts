import { createHash } from 'node:crypto';
import type { CommittedBlob, HasherFactory } from './types.ts';

/** SHA-256 and MD5 always, plus any extra hashers; shared by every BlobStore implementation. */
export class StreamDigests {
  private readonly sha256 = createHash('sha256');
  private readonly md5 = createHash('md5');
  private readonly extras: [string, ReturnType<HasherFactory>][];
  private size = 0;

  constructor(hashers: Record<string, HasherFactory> = {}) {
    this.extras = Object.entries(hashers).map(([name, make]) => [name, make()]);
  }

  update(bytes: Uint8Array): void {
    this.sha256.update(bytes);
    this.md5.update(bytes);
    for (const [, hasher] of this.extras) hasher.update(bytes);
    this.size += bytes.length;
  }

  finish(): CommittedBlob {
    const result: CommittedBlob = { sha256: this.sha256.digest('hex'), md5: this.md5.digest('hex'), size: this.size };
    if (this.extras.length > 0) {
      result.extra = {};
      for (const [name, hasher] of this.extras) {
        const digest = hasher.digest();
        result.extra[name] = typeof digest === 'string' ? digest : digest.toString('base64');
      }
    }
    return result;
  }
}
