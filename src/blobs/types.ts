import type { Readable } from 'node:stream';

export interface Hasher {
  update(bytes: Uint8Array): unknown;
  digest(): Buffer | string;
}

/**
 * Where a worker thread can build the same hasher: `new (await import(module))[exportName](...args)`. A module URL,
 * not a closure, because functions cannot cross a thread boundary.
 */
export interface HasherModule {
  module: string;
  exportName: string;
  args?: unknown[];
}

/**
 * An extra digest computed while streaming, e.g. OneDrive's quickXorHash. Buffer digests are reported base64.
 * With `threaded`, a store may run it on a hashing thread; without, it runs on the caller's thread.
 */
export type HasherFactory = (() => Hasher) & { readonly threaded?: HasherModule };

export interface CommittedBlob {
  /** Lowercase hex. */
  sha256: string;
  /** Lowercase hex. */
  md5: string;
  size: number;
  /** One entry per extra hasher, keyed by the name it was given. */
  extra?: Record<string, string>;
  /**
   * Kept in this process's memory until the store's `sync` (small content committed with `deferSync`, db-tier.ts):
   * nothing of it is stored yet, so the note of its reference can wait for that sync too (fresh-blobs.ts).
   */
  held?: boolean;
}

export interface BlobWriter {
  /** Writes must be awaited one at a time. After a failed source, keep writing from `bytesWritten` (Range resume). */
  write(chunk: Uint8Array): Promise<void>;
  readonly bytesWritten: number;
  /** Makes the content visible under its SHA-256; identical content already stored is kept and the new copy dropped. */
  commit(): Promise<CommittedBlob>;
  /** Drops everything written; nothing becomes visible. Safe to call more than once. */
  abort(): Promise<void>;
}

/** Byte range, both ends inclusive (as in an HTTP Range header). */
export interface BlobRange {
  start: number;
  end?: number;
}

export interface WriterOptions {
  hashers?: Record<string, HasherFactory>;
  /**
   * Group commit: `commit()` makes the blob visible but not yet durable; the caller makes a set of them durable at
   * once with `sync()` before it records anything that refers to them. Stores without `sync` ignore it.
   */
  deferSync?: boolean;
}

export interface BlobStore {
  writer(opts?: WriterOptions): Promise<BlobWriter>;
  /**
   * Makes blobs committed with `deferSync` durable: bytes and names. A blob deleted meanwhile is skipped (callers
   * check `has` after they reference it). Absent where every commit is already durable.
   */
  sync?(sha256s: string[]): Promise<void>;
  has(sha256: string): Promise<boolean>;
  /** Of these, the ones not stored, found together (one query where the store can). Absent: `has` for each. */
  missing?(sha256s: string[]): Promise<string[]>;
  /** Rejects with BlobNotFoundError when the blob does not exist. */
  read(sha256: string, range?: BlobRange): Promise<Readable>;
  stat(sha256: string): Promise<{ size: number } | null>;
  /** Deleting a blob that does not exist is not an error. */
  delete(sha256: string): Promise<void>;
}

/** Of `sha256s`, the ones `blobs` does not hold: together where the store can, else one `has` each. */
export async function missingFrom(blobs: BlobStore, sha256s: string[]): Promise<string[]> {
  if (sha256s.length === 0) return [];
  if (blobs.missing) return blobs.missing(sha256s);
  const held = await Promise.all(sha256s.map((s) => blobs.has(s)));
  return sha256s.filter((_, i) => !held[i]);
}

export class BlobNotFoundError extends Error {
  override readonly name = 'BlobNotFoundError';
  readonly code = 'blob_not_found';

  constructor(readonly sha256: string) {
    super(`blob ${sha256} not found`);
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Keys reach storage paths and object names: anything but a lowercase hex SHA-256 is refused. */
export function assertSha256(sha256: string): void {
  if (!SHA256_HEX.test(sha256)) throw new TypeError('blob key must be a lowercase hex SHA-256');
}
