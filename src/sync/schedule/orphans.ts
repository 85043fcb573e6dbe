import type { BlobStore } from '../../blobs/types.ts';
import type { Logger } from '../../connectors/types.ts';
import { BlobRefRepo } from '../../store/blob-refs.ts';
import type { Database } from '../../store/db.ts';

export interface OrphanSweepResult {
  /** temp files of interrupted writes removed */
  temp: number;
  /** committed blobs no item references removed */
  blobs: number;
}

/** An optional capability of a blob store (the filesystem store has it). */
type TempSweeper = { sweepTemp(olderThanMs: number): Promise<number> };

const BATCH = 200;

/**
 * Removes what a crash leaves behind in the content store: temp files of writes that never committed, and blobs
 * committed by a run that died before writing the item that references them. Both are judged by age: a live run
 * in any process touches its temp file while writing and notes a committed blob (BlobRefRepo.noteCommitted) just
 * before writing its item, so nothing younger than `olderThanMs` is ever taken. A blob whose row a live run
 * notes or acquires again while the sweep looks at it is kept (collectStale re-checks inside its transaction).
 */
export async function sweepOrphans(
  deps: { db: Database; blobs: BlobStore; log: Logger; now: Date },
  olderThanMs: number,
): Promise<OrphanSweepResult> {
  const result: OrphanSweepResult = { temp: 0, blobs: 0 };
  const sweeper = deps.blobs as BlobStore & Partial<TempSweeper>;
  if (typeof sweeper.sweepTemp === 'function') result.temp = await sweeper.sweepTemp(olderThanMs);

  const refs = new BlobRefRepo(deps.db);
  const before = new Date(deps.now.getTime() - olderThanMs).toISOString();
  const skipped = new Set<string>();
  for (;;) {
    const batch = (await refs.staleUnreferenced(before, BATCH + skipped.size)).filter((sha) => !skipped.has(sha));
    if (batch.length === 0) break;
    for (const sha of batch) {
      const outcome = await refs.collectStale(sha, before, deps.blobs);
      if (outcome === 'deleted') result.blobs += 1;
      else skipped.add(sha);
      if (outcome === 'claimed')
        deps.log.error({ sha256: sha }, 'blob reference count is zero but an item holds the content: kept');
    }
  }
  if (result.temp + result.blobs > 0)
    deps.log.info({ ...result }, 'removed what interrupted runs left in the content store');
  return result;
}
