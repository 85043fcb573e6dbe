import { createFsBlobStore } from './fs.ts';
import type { BlobStore } from './types.ts';

export type BlobStoreConfig = { kind: 'fs'; root: string };

export function createBlobStore(config: BlobStoreConfig): BlobStore {
  switch (config.kind) {
    case 'fs':
      return createFsBlobStore({ root: config.root });
    default: {
      const unknownKind: never = config.kind;
      throw new Error(`unknown blob store kind: ${String(unknownKind)}`);
    }
  }
}

export { createFsBlobStore, type FsBlobStore, type FsBlobStoreOptions } from './fs.ts';
export { StreamDigests } from './hashing.ts';
export { pipeToWriter } from './pipe.ts';
export { assertSha256, BlobNotFoundError, type BlobRange, type BlobStore, type BlobWriter, type CommittedBlob, type HasherFactory } from './types.ts';
