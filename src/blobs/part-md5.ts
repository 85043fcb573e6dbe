import { createHash, type Hash } from 'node:crypto';
import type { HasherFactory } from './types.ts';

/**
 * The ETag S3 gives an object uploaded in parts of `partSize` bytes: the MD5 of the concatenated binary MD5s of
 * the parts, then "-" and the number of parts. Lets the S3 store check an upload without reading it back.
 */
export class PartMd5 {
  private readonly parts: Buffer[] = [];
  private current: Hash = createHash('md5');
  private inPart = 0;

  constructor(private readonly partSize: number) {}

  static factory(partSize: number): HasherFactory {
    return Object.assign(() => new PartMd5(partSize), {
      threaded: { module: import.meta.url, exportName: 'PartMd5', args: [partSize] },
    });
  }

  update(bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) {
      const n = Math.min(this.partSize - this.inPart, bytes.length - offset);
      this.current.update(bytes.subarray(offset, offset + n));
      this.inPart += n;
      offset += n;
      if (this.inPart === this.partSize) {
        this.parts.push(this.current.digest());
        this.current = createHash('md5');
        this.inPart = 0;
      }
    }
  }

  digest(): string {
    if (this.inPart > 0 || this.parts.length === 0) this.parts.push(this.current.digest());
    return `${createHash('md5').update(Buffer.concat(this.parts)).digest('hex')}-${this.parts.length}`;
  }
}
