import type { BlobStore } from '../blobs/types.ts';
import { removeItemsFromIndex } from '../search/index.ts';
import { BlobRefRepo } from '../store/blob-refs.ts';
import type { Database } from '../store/db.ts';
import { CursorRepo, ItemRepo, previousVersionsOf } from '../store/items.ts';
import { RunRepo } from '../store/runs.ts';

/**
 * Deletes a collection's items, runs, run errors and cursors, and every blob no other collection still
 * references. Items go in batches, each batch with its reference releases in one transaction, so a crash
 * midway leaves counts exact and a second call finishes the job.
 */
export async function purgeCollectionData(db: Database, blobs: BlobStore, collectionId: string, now: () => string): Promise<void> {
  const items = new ItemRepo(db);
  const refs = new BlobRefRepo(db);
  for (;;) {
    const batch = await items.purgeBatch(collectionId, 500);
    if (batch.length === 0) break;
    const released = await db.transaction().execute(async (trx) => {
      const shas: string[] = [];
      for (const row of batch) {
        if (row.holds_ref && row.sha256) shas.push(row.sha256);
        for (const v of previousVersionsOf(row)) shas.push(v.sha256);
      }
      for (const sha of shas) await refs.release(trx, sha, now());
      const ids = batch.map((r) => r.id);
      await removeItemsFromIndex(trx, ids);
      await items.deleteIds(trx, ids);
      return shas;
    });
    for (const sha of new Set(released)) await refs.collect(sha, blobs);
  }
  await new RunRepo(db).deleteByCollection(collectionId);
  await new CursorRepo(db).delete(collectionId);
}
