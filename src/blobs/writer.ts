// The one write pipeline of every blob store: bytes go to the store's sink (a file, an S3 multipart upload) and to
// the digests (hashing threads past a threshold) at the same time, and the next chunk is taken only when both are
// done with this one. Neither keeps the caller's buffer after its promise resolves, so a writer holds the digests'
// ring plus what its sink holds (a file: nothing; S3: its part buffers), whatever the blob's size.
import { sweepWrittenChunks } from './chunk-sweeper.ts';
import { createDigests, type Digests, type HashingOptions } from './hashing.ts';
import type { BlobWriter, CommittedBlob, HasherFactory } from './types.ts';

/** Where a store puts a blob's bytes while they are hashed. */
export interface BlobSink {
  /** Digests the sink needs to check its own copy (S3: the ETag of a multipart upload), computed with the others. */
  readonly hashers?: Record<string, HasherFactory>;
  /** Takes the next bytes; must not keep a reference to `chunk` once the promise resolves. */
  write(chunk: Uint8Array): Promise<void>;
  /** Every byte was given: make them durable (runs while the last digests finish). */
  end(): Promise<void>;
  /** After end(): make the content visible under `blob.sha256`. `own` holds the digests of `hashers`. */
  commit(blob: CommittedBlob, own: Record<string, string>): Promise<void>;
  /** Drops what was written; called once, after a failed commit too. */
  abort(): Promise<void>;
}

type WriterState = 'open' | 'failed' | 'committed' | 'aborted';

/**
 * The states every BlobWriter goes through: writes one at a time, a write that throws leaves only abort(), a commit
 * or an abort is final.
 */
export class WriterStates {
  private state: WriterState = 'open';
  private busy = false;

  /** Runs one write; if it throws, the writer's bytes and hashes may disagree: only abort() is allowed from here. */
  async write(work: () => Promise<void>): Promise<void> {
    this.assertOpen();
    if (this.busy) throw new Error('BlobWriter.write called before the previous write finished');
    this.busy = true;
    try {
      await work();
    } catch (error) {
      this.state = 'failed';
      throw error;
    } finally {
      this.busy = false;
    }
  }

  /** Moves to committed; throws unless open and idle. */
  commit(): void {
    this.assertOpen();
    if (this.busy) throw new Error('BlobWriter.commit called while a write is in progress');
    this.state = 'committed';
  }

  /** Moves to aborted; false when already committed or aborted (nothing to drop). */
  abort(): boolean {
    if (this.state === 'committed' || this.state === 'aborted') return false;
    this.state = 'aborted';
    return true;
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw new Error(`BlobWriter is ${this.state}`);
  }
}

export class PipelineWriter implements BlobWriter {
  private readonly states = new WriterStates();
  private written = 0;
  private readonly digests: Digests;
  private readonly own: Set<string>;

  constructor(
    private readonly sink: BlobSink,
    hashers: Record<string, HasherFactory> | undefined,
    hashing: HashingOptions | undefined,
    private readonly settled: () => void,
  ) {
    this.own = new Set(Object.keys(sink.hashers ?? {}));
    for (const name of Object.keys(hashers ?? {}))
      if (this.own.has(name)) throw new Error(`hasher name ${name} is reserved by the blob store`);
    this.digests = createDigests({ ...hashers, ...sink.hashers }, hashing);
  }

  get bytesWritten(): number {
    return this.written;
  }

  write(chunk: Uint8Array): Promise<void> {
    return this.states.write(async () => {
      await Promise.all([this.sink.write(chunk), this.digests.update(chunk)]);
      this.written += chunk.length;
      sweepWrittenChunks(chunk.length);
    });
  }

  async commit(): Promise<CommittedBlob> {
    this.states.commit();
    try {
      const [digested] = await Promise.all([this.digests.finish(), this.sink.end()]);
      const blob: CommittedBlob = { sha256: digested.sha256, md5: digested.md5, size: digested.size };
      const extra: Record<string, string> = {};
      const own: Record<string, string> = {};
      for (const [name, value] of Object.entries(digested.extra ?? {}))
        (this.own.has(name) ? own : extra)[name] = value;
      if (Object.keys(extra).length > 0) blob.extra = extra;
      await this.sink.commit(blob, own);
      return blob;
    } catch (error) {
      this.digests.close();
      await this.sink.abort().catch(() => undefined);
      throw error;
    } finally {
      this.settled();
    }
  }

  async abort(): Promise<void> {
    if (!this.states.abort()) return;
    this.digests.close();
    try {
      await this.sink.abort();
    } finally {
      this.settled();
    }
  }
}
