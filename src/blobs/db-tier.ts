// Small content kept in the database instead of the blob store: a file per blob costs the kernel a temp file, a
// rename, often a new shard directory and three fsyncs at the group sync, which bounded small-item syncs (issue 25).
// A writer holds up to `maxBytes` in memory and hashes them on the caller's thread; content that grows past that
// goes to the base store's writer (the held prefix replayed), so large files take exactly the path they took before.
// With group commit (`deferSync`) a small blob stays in this process's memory until `sync`, which writes the page's
// blobs in one statement before the transaction that records their items; reads of it meanwhile are served from
// memory. Everything else (reads of older content, S3 or files) falls through to the base store.
import { Readable } from 'node:stream';
import { StreamDigests } from './hashing.ts';
import { WriterStates } from './writer.ts';
import {
  assertSha256,
  missingFrom,
  type BlobRange,
  type BlobStore,
  type BlobWriter,
  type CommittedBlob,
  type WriterOptions,
} from './types.ts';

/** Where small blobs are kept (store/small-blobs.ts). */
export interface SmallBlobTable {
  /** Writes rows not there yet; content already there is kept. */
  put(rows: Array<{ sha256: string; bytes: Buffer }>): Promise<void>;
  get(sha256: string): Promise<Buffer | null>;
  size(sha256: string): Promise<number | null>;
  /** Which of these are rows. */
  present(sha256s: string[]): Promise<Set<string>>;
  delete(sha256: string): Promise<void>;
}

/**
 * Small blobs committed with `deferSync` and not yet synced, at most this many: a caller that never syncs nor deletes
 * what it committed (none does; this is a bound, not a path) has its oldest written to the table.
 */
const MAX_PENDING = 10_000;

class TierWriter implements BlobWriter {
  private readonly states = new WriterStates();
  private held: Buffer[] = [];
  private heldBytes = 0;
  private digests: StreamDigests;
  private spilled: BlobWriter | undefined;

  constructor(
    private readonly tier: DbTier,
    private readonly opts: WriterOptions | undefined,
  ) {
    this.digests = new StreamDigests(opts?.hashers);
  }

  get bytesWritten(): number {
    return this.spilled ? this.spilled.bytesWritten : this.heldBytes;
  }

  write(chunk: Uint8Array): Promise<void> {
    return this.states.write(async () => {
      if (!this.spilled && this.heldBytes + chunk.length <= this.tier.maxBytes) {
        // copied: a writer keeps no reference to the caller's buffer
        const copy = Buffer.from(chunk);
        this.held.push(copy);
        this.heldBytes += copy.length;
        this.digests.update(copy);
        return;
      }
      if (!this.spilled) {
        const held = this.held;
        this.held = [];
        this.spilled = await this.tier.base.writer(this.opts);
        for (const part of held) await this.spilled.write(part);
      }
      await this.spilled.write(chunk);
    });
  }

  async commit(): Promise<CommittedBlob> {
    this.states.commit();
    if (this.spilled) return this.spilled.commit();
    const blob = this.digests.finish();
    const bytes = Buffer.concat(this.held, this.heldBytes);
    this.held = [];
    const held = this.opts?.deferSync === true;
    await this.tier.keep(blob.sha256, bytes, held);
    return held ? { ...blob, held } : blob;
  }

  async abort(): Promise<void> {
    if (!this.states.abort()) return;
    this.held = [];
    await this.spilled?.abort();
  }
}

class DbTier {
  /** Committed with deferSync, not yet in the table; in commit order (a Map keeps insertion order). */
  readonly pending = new Map<string, Buffer>();

  constructor(
    readonly base: BlobStore,
    readonly table: SmallBlobTable,
    readonly maxBytes: number,
  ) {}

  async keep(sha256: string, bytes: Buffer, deferSync: boolean): Promise<void> {
    if (!deferSync) return this.table.put([{ sha256, bytes }]);
    this.pending.delete(sha256);
    this.pending.set(sha256, bytes);
    if (this.pending.size <= MAX_PENDING) return;
    const [oldest] = this.pending.keys();
    await this.write([oldest]);
  }

  /** Writes these pending blobs to the table; returns the keys that were not pending. */
  async write(sha256s: string[]): Promise<string[]> {
    const rows: Array<{ sha256: string; bytes: Buffer }> = [];
    const others: string[] = [];
    for (const sha256 of new Set(sha256s)) {
      const bytes = this.pending.get(sha256);
      if (bytes) rows.push({ sha256, bytes });
      else others.push(sha256);
    }
    if (rows.length > 0) await this.table.put(rows);
    // Forgotten only once written: a failed write leaves them for the caller's next sync.
    for (const r of rows) if (this.pending.get(r.sha256) === r.bytes) this.pending.delete(r.sha256);
    return others;
  }

  async bytesOf(sha256: string): Promise<Buffer | null> {
    assertSha256(sha256);
    return this.pending.get(sha256) ?? (await this.table.get(sha256));
  }
}

const tiers = new WeakMap<BlobStore, DbTier>();

/**
 * Deletes a blob wherever it is, its row through `table`: a caller inside a database transaction passes the
 * transaction's (on SQLite the transaction holds the only connection, which the tier's own table would wait for).
 */
export async function deleteBlob(blobs: BlobStore, table: SmallBlobTable, sha256: string): Promise<void> {
  const tier = tiers.get(blobs);
  if (!tier) return blobs.delete(sha256);
  assertSha256(sha256);
  tier.pending.delete(sha256);
  await table.delete(sha256);
  await tier.base.delete(sha256);
}

function rangeOf(bytes: Buffer, range: BlobRange | undefined): Buffer {
  if (!range) return bytes;
  if (range.start < 0 || (range.end !== undefined && range.end < range.start))
    throw new RangeError(`invalid range ${range.start}-${range.end ?? ''}`);
  return bytes.subarray(range.start, range.end === undefined ? undefined : range.end + 1);
}

/**
 * `base` with content up to `maxBytes` kept in `table`. Forwards the base store's own extras (`sweepTemp`).
 */
export function withDbTier(base: BlobStore, table: SmallBlobTable, maxBytes: number): BlobStore {
  const tier = new DbTier(base, table, maxBytes);
  const smallSize = async (sha256: string): Promise<number | null> => {
    assertSha256(sha256);
    return tier.pending.get(sha256)?.length ?? table.size(sha256);
  };
  const store: BlobStore & { sweepTemp?: (olderThanMs: number) => Promise<number> } = {
    writer: async (opts) => new TierWriter(tier, opts),

    async sync(sha256s) {
      const others = await tier.write(sha256s);
      if (others.length > 0) await base.sync?.(others);
    },

    async has(sha256) {
      return (await smallSize(sha256)) !== null || base.has(sha256);
    },

    async missing(sha256s) {
      for (const sha256 of sha256s) assertSha256(sha256);
      const notPending = sha256s.filter((s) => !tier.pending.has(s));
      const rows = await table.present(notPending);
      return missingFrom(
        base,
        notPending.filter((s) => !rows.has(s)),
      );
    },

    async stat(sha256) {
      const size = await smallSize(sha256);
      return size === null ? base.stat(sha256) : { size };
    },

    async read(sha256, range) {
      const bytes = await tier.bytesOf(sha256);
      if (bytes === null) return base.read(sha256, range);
      return Readable.from([rangeOf(bytes, range)], { objectMode: false });
    },

    delete: (sha256) => deleteBlob(store, table, sha256),
  };
  tiers.set(store, tier);
  const sweeper = base as { sweepTemp?: (olderThanMs: number) => Promise<number> };
  if (typeof sweeper.sweepTemp === 'function') store.sweepTemp = (ms) => sweeper.sweepTemp!(ms);
  return store;
}
