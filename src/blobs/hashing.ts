import { createHash } from 'node:crypto';
import { sharedHashPool, ThreadedDigests, type HashPool } from './hash-threads.ts';
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

export interface HashingOptions {
  /** Hash on worker threads once a blob passes `threshold` bytes (default true). */
  threads?: boolean;
  /** Bytes kept and hashed on the caller's thread before a blob counts as large (default 1 MiB); also the slot size. */
  threshold?: number;
  /** The threads to use (default: the process's shared pool). */
  pool?: HashPool;
}

/** The running digests of one blob being written. */
export interface Digests {
  update(bytes: Uint8Array): Promise<void>;
  finish(): Promise<CommittedBlob>;
  /** Drops the digests; safe to call more than once. */
  close(): void;
}

const DEFAULT_THRESHOLD = 1 << 20;

/**
 * Small blobs (most chat messages and metadata) are hashed on the caller's thread: a thread hop would cost more
 * than the hashing. The first `threshold` bytes are kept aside unhashed; a blob that grows past them moves to
 * the hashing threads, starting with those bytes.
 */
export function createDigests(hashers: Record<string, HasherFactory> = {}, options: HashingOptions = {}): Digests {
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  if (options.threads === false) {
    const inline = new StreamDigests(hashers);
    return {
      update: async (bytes) => inline.update(bytes),
      finish: async () => inline.finish(),
      close: () => undefined,
    };
  }
  let held: Buffer[] = [];
  let heldBytes = 0;
  let threaded: ThreadedDigests | undefined;
  return {
    async update(bytes) {
      if (threaded) return threaded.update(bytes);
      held.push(Buffer.from(bytes));
      heldBytes += bytes.length;
      if (heldBytes < threshold) return;
      threaded = new ThreadedDigests(options.pool ?? sharedHashPool(), hashers, threshold);
      const pending = held;
      held = [];
      for (const chunk of pending) await threaded.update(chunk);
    },
    async finish() {
      if (threaded) return threaded.finish();
      const inline = new StreamDigests(hashers);
      for (const chunk of held) inline.update(chunk);
      held = [];
      return inline.finish();
    },
    close() {
      held = [];
      threaded?.close();
    },
  };
}
