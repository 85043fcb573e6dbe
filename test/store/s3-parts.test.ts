import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createS3BlobStore } from '../../src/blobs/index.ts';
import { S3_TEST_BUCKET, S3_TEST_CREDENTIALS, startS3, type TestS3 } from '../support/s3.ts';

const MIB = 1024 * 1024;

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.stop();
});

describe('S3 uploads with bounded memory', () => {
  it('holds at most queueSize + 1 parts: no more parts in flight, allocated or accepted ahead of the server, whatever the size', async () => {
    const partSize = 5 * MIB;
    const queueSize = 2;
    const store = createS3BlobStore({
      bucket: S3_TEST_BUCKET,
      prefix: `parts-${randomBytes(4).toString('hex')}`,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3_TEST_CREDENTIALS,
      partSize,
      queueSize,
    });
    const allocated = vi.spyOn(Buffer, 'allocUnsafeSlow');
    const writer = await store.writer();
    let inFlight = 0;
    let maxInFlight = 0;
    let acknowledged = 0;
    let maxAhead = 0;
    let parts = 0;
    // Sees every part on its way to the server: how many are being sent, and how far the writer is ahead of them.
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'UploadPartCommand') return next(args);
        const length = Number((args.input as { ContentLength?: number }).ContentLength);
        parts += 1;
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        maxAhead = Math.max(maxAhead, writer.bytesWritten - acknowledged);
        try {
          return await next(args);
        } finally {
          inFlight -= 1;
          acknowledged += length;
        }
      },
      { step: 'initialize', name: 'watchParts' },
    );
    const total = 48 * MIB + 12_345;
    const sha256 = createHash('sha256');
    const chunk = Buffer.alloc(64 * 1024);
    for (let written = 0; written < total; written += chunk.length) {
      const n = Math.min(chunk.length, total - written);
      chunk.fill(written & 0xff);
      chunk.writeUInt32LE(written, 0);
      sha256.update(chunk.subarray(0, n));
      await writer.write(chunk.subarray(0, n));
    }
    const blob = await writer.commit();
    const partBuffers = allocated.mock.calls.filter(([size]) => size === partSize).length;
    allocated.mockRestore();
    expect(blob).toMatchObject({ sha256: sha256.digest('hex'), size: total });
    expect(parts).toBe(Math.ceil(total / partSize));
    expect({ maxInFlight, partBuffers }).toEqual({ maxInFlight: queueSize, partBuffers: queueSize + 1 });
    expect(maxAhead).toBeLessThanOrEqual((queueSize + 1) * partSize);
    // the content reads back whole
    let read = 0;
    for await (const piece of await store.read(blob.sha256)) read += (piece as Buffer).length;
    expect(read).toBe(total);
    store.client.destroy();
  });
});
