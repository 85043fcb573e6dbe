import { createFsBlobStore, type FsBlobStoreOptions } from './fs.ts';
import { createS3BlobStore, type S3BlobStoreOptions } from './s3.ts';
import type { BlobStore } from './types.ts';

export type BlobStoreConfig = ({ kind: 'fs' } & FsBlobStoreOptions) | ({ kind: 's3' } & S3BlobStoreOptions);

export function createBlobStore(config: BlobStoreConfig): BlobStore {
  switch (config.kind) {
    case 'fs':
      return createFsBlobStore(config);
    case 's3':
      return createS3BlobStore(config);
    default: {
      const unknownKind: never = config;
      throw new Error(`unknown blob store kind: ${String((unknownKind as { kind: unknown }).kind)}`);
    }
  }
}

export { createFsBlobStore, type FsBlobStore, type FsBlobStoreOptions } from './fs.ts';
export { createS3BlobStore, type S3BlobStore, type S3BlobStoreOptions } from './s3.ts';
export { createDigests, StreamDigests, type Digests, type HashingOptions } from './hashing.ts';
export { HashPool, sharedHashPool } from './hash-threads.ts';
export { pipeToWriter } from './pipe.ts';
export {
  assertSha256,
  BlobNotFoundError,
  type BlobRange,
  type BlobStore,
  type BlobWriter,
  type CommittedBlob,
  type Hasher,
  type HasherFactory,
  type HasherModule,
} from './types.ts';
