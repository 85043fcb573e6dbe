import type { Readable } from 'node:stream';
import type { BlobStore, BlobWriter, CommittedBlob, HasherFactory } from '../../blobs/types.ts';
import { type ContentSource } from '../../connectors/types.ts';
import { ContentRejectedError } from '../../domain/run-failures.ts';

export interface FetchedContent {
  blob: CommittedBlob;
  providerHash: { type: string; value: string } | null;
  /** true: the provider's hash matched; false: it did not, even after a second download; null: none given */
  verified: boolean | null;
  /** bytes received, resumed and repeated downloads included */
  transferred: number;
  /** committed blobs this fetch made and then rejected (a hash mismatch): the caller discards them */
  rejected: CommittedBlob[];
  /** why verification failed, for the run's errors */
  problem?: string;
  /** The whole content when it is at most KEPT_CONTENT_BYTES (its search text is taken from it, not read back). */
  bytes?: Buffer;
}

/** Content up to this size stays in memory with its blob (FetchedContent.bytes); a larger one is read back. */
export const KEPT_CONTENT_BYTES = 64 * 1024;

export interface FetchOptions {
  signal: AbortSignal;
  /** Times a broken stream is reopened (with Range when possible) before giving up. Default 3. */
  maxResumes?: number;
  /** Told of each piece of content received. */
  onProgress?: () => void;
  /** Leave the blob's fsync to the caller's group commit (BlobStore.sync) before it is recorded. */
  deferSync?: boolean;
}

const PROVIDER = 'provider';

/**
 * Streams a content source into the blob store with SHA-256, MD5 and the provider's hash computed on the way.
 * A stream that breaks is reopened from the bytes already written when the source can answer a range, else
 * from the start. A provider hash mismatch costs one full re-download; a second mismatch is kept and reported.
 */
export async function fetchContent(
  blobs: BlobStore,
  source: ContentSource,
  opts: FetchOptions,
): Promise<FetchedContent> {
  const stated = source.providerHash;
  const hashers: Record<string, HasherFactory> | undefined = stated
    ? { [PROVIDER]: Object.assign(() => stated.create(), { threaded: stated.threaded }) }
    : undefined;
  const expected = source.providerHash ? { type: source.providerHash.type, value: source.providerHash.value } : null;
  const rejected: CommittedBlob[] = [];
  let transferred = 0;
  for (let download = 1; ; download++) {
    const { blob, bytes, kept } = await downloadOnce(blobs, source, hashers, opts);
    transferred += bytes;
    if (!expected) return { blob, providerHash: null, verified: null, transferred, rejected, bytes: kept };
    const actual = blob.extra?.[PROVIDER] ?? '';
    if (sameHash(actual, expected.value))
      return { blob, providerHash: expected, verified: true, transferred, rejected, bytes: kept };
    const problem = `${expected.type} mismatch: the provider states ${expected.value}, the content hashes to ${actual}`;
    if (download >= 2)
      return { blob, providerHash: expected, verified: false, transferred, rejected, problem, bytes: kept };
    rejected.push(blob);
  }
}

/** Base64 digests (quickXorHash) are case-sensitive; hex digests are not. */
function sameHash(actual: string, stated: string): boolean {
  if (actual === stated) return true;
  return /^[0-9a-f]+$/i.test(stated) && actual.toLowerCase() === stated.toLowerCase();
}

async function downloadOnce(
  blobs: BlobStore,
  source: ContentSource,
  hashers: Record<string, HasherFactory> | undefined,
  opts: FetchOptions,
): Promise<{ blob: CommittedBlob; bytes: number; kept?: Buffer }> {
  const maxResumes = opts.maxResumes ?? 3;
  const open = () => blobs.writer({ hashers, deferSync: opts.deferSync });
  let writer = await open();
  let kept = new KeptBytes();
  let bytes = 0;
  try {
    for (let resumes = 0; ; resumes++) {
      const offset = writer.bytesWritten;
      try {
        const { body, partial } = await source.open(offset, opts.signal);
        if (offset > 0 && !partial) {
          // The source ignored the range: the bytes already written cannot be continued.
          await writer.abort();
          writer = await open();
          kept = new KeptBytes();
        }
        bytes += await copy(body, { writer, kept, source, signal: opts.signal, onProgress: opts.onProgress });
        return { blob: await writer.commit(), bytes, kept: kept.whole() };
      } catch (err) {
        if (opts.signal.aborted || err instanceof ContentRejectedError || resumes >= maxResumes) throw err;
      }
    }
  } catch (err) {
    await writer.abort();
    throw err;
  }
}

/** The bytes a writer has taken so far, as long as they stay within KEPT_CONTENT_BYTES. */
class KeptBytes {
  private chunks: Uint8Array[] | null = [];
  private size = 0;

  /** After the writer took `chunk`: a resumed download continues from there, and so do these. */
  add(chunk: Uint8Array): void {
    if (!this.chunks) return;
    this.size += chunk.length;
    if (this.size > KEPT_CONTENT_BYTES) this.chunks = null;
    else this.chunks.push(chunk);
  }

  whole(): Buffer | undefined {
    return this.chunks ? Buffer.concat(this.chunks) : undefined;
  }
}

interface CopyTo {
  writer: BlobWriter;
  kept: KeptBytes;
  source: ContentSource;
  signal: AbortSignal;
  onProgress?: () => void;
}

async function copy(body: Readable, { writer, kept, source, signal, onProgress }: CopyTo): Promise<number> {
  const onAbort = () => body.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  signal.addEventListener('abort', onAbort, { once: true });
  let n = 0;
  try {
    for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (writer.bytesWritten === 0 && bytes.length > 0 && source.rejectIf) {
        const reason = source.rejectIf(bytes);
        if (reason) throw new ContentRejectedError(reason);
      }
      await writer.write(bytes);
      kept.add(bytes);
      n += bytes.length;
      onProgress?.();
    }
    if (signal.aborted) throw signal.reason;
    return n;
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!body.destroyed) body.destroy();
  }
}
