// Blobs an item writer committed for the items of its current page, not yet recorded. With group commit they were
// written without an fsync each and noted (item-content.ts; content the store holds in memory until the sync is
// noted here): before the flush transaction that records them commits, they are made durable together, so that a
// crash never leaves an item row whose blob is missing or torn. After the commit, each must still exist (see
// BlobRefRepo on a racing collect).
import { missingFrom, type BlobStore } from '../../blobs/types.ts';
import type { ContentSource, ItemInput } from '../../connectors/types.ts';
import type { BlobRefRepo } from '../../store/blob-refs.ts';

export interface FreshBlob {
  sha256: string;
  size: number;
  /** Its reference is noted already (item-content.ts); else it is noted before the page's sync. */
  noted: boolean;
  input: ItemInput;
  content: ContentSource;
}

export class FreshBlobs {
  private list: FreshBlob[] = [];

  /** `synced`: committed durably already (no group commit): nothing to sync before the transaction. */
  constructor(private readonly synced: boolean) {}

  add(blob: FreshBlob): void {
    this.list.push(blob);
  }

  /**
   * This page's blobs, for one flush: durable when the returned promise resolves. They stay here until
   * `committed`, so a flush that fails syncs them again next time.
   */
  async beforeCommit(blobs: BlobStore, refs: BlobRefRepo, at: string): Promise<FreshBlob[]> {
    const page = this.list.slice();
    // Noted before they are stored: a crash in between leaves a note of nothing, which the orphan sweep clears.
    const unnoted = page.filter((b) => !b.noted);
    if (unnoted.length > 0) {
      await refs.noteAll(unnoted.map((b) => ({ sha256: b.sha256, size: b.size, at })));
      for (const b of unnoted) b.noted = true;
    }
    if (page.length === 0 || this.synced) return page;
    await blobs.sync?.(page.map((b) => b.sha256));
    return page;
  }

  /** The flush transaction that recorded `page` committed. */
  committed(page: FreshBlob[]): void {
    this.list = this.list.slice(page.length);
  }

  /** Blobs of items that will never be recorded (the caller discards them): forgotten here. */
  clear(): void {
    this.list = [];
  }
}

/** After the page's commit: content deleted meanwhile by a racing collect is fetched again, now referenced. */
export async function refetchMissing(
  page: FreshBlob[],
  blobs: BlobStore,
  refetch: (blob: FreshBlob) => Promise<unknown>,
): Promise<void> {
  const missing = new Set(
    await missingFrom(
      blobs,
      page.map((b) => b.sha256),
    ),
  );
  for (const blob of page) if (missing.delete(blob.sha256)) await refetch(blob);
}
