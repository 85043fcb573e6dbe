import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PartMd5 } from '../../src/blobs/part-md5.ts';

const md5 = (b: Uint8Array) => createHash('md5').update(b).digest();

describe('PartMd5 (the ETag S3 gives a multipart upload)', () => {
  it("is the MD5 of the parts' binary MD5s and the part count, whatever the chunking", () => {
    const data = randomBytes(25);
    // Parts of 10 bytes: [0,10), [10,20), [20,25).
    const expected = `${createHash('md5')
      .update(Buffer.concat([md5(data.subarray(0, 10)), md5(data.subarray(10, 20)), md5(data.subarray(20))]))
      .digest('hex')}-3`;
    for (const chunk of [1, 3, 10, 25]) {
      const h = new PartMd5(10);
      for (let i = 0; i < data.length; i += chunk) h.update(data.subarray(i, i + chunk));
      expect(h.digest()).toBe(expected);
    }
  });

  it('does not count an empty last part when the size is a multiple of the part size', () => {
    const data = randomBytes(20);
    const h = new PartMd5(10);
    h.update(data);
    expect(h.digest()).toBe(
      `${createHash('md5')
        .update(Buffer.concat([md5(data.subarray(0, 10)), md5(data.subarray(10))]))
        .digest('hex')}-2`,
    );
  });

  it('names a module a hashing thread can build it from', () => {
    expect(PartMd5.factory(10).threaded).toMatchObject({ exportName: 'PartMd5', args: [10] });
  });
});
