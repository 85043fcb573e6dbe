import type { BlobStore } from '../blobs/types.ts';
import { BlobRefRepo } from '../store/blob-refs.ts';
import type { Database } from '../store/db.ts';
import { ExportRepo } from '../store/exports.ts';

/**
 * Releases a collection's exports when it is deleted: queued and running ones are cancelled (a worker elsewhere
 * notices at its next heartbeat; `stopLocal` stops one this process writes), then the rows go in batches, each
 * with the release of its package blob in one transaction, and a blob nothing references any more is deleted.
 * A second call finishes what a crash left.
 */
export async function purgeCollectionExports(
  db: Database,
  blobs: BlobStore,
  collectionId: string,
  now: () => string,
  stopLocal: (exportId: string) => Promise<void>,
): Promise<void> {
  const exports = new ExportRepo(db);
  for (const id of await exports.activeIds(collectionId)) {
    await exports.cancel(id, now());
    await stopLocal(id);
  }
  const refs = new BlobRefRepo(db);
  for (;;) {
    const gone = await db.transaction().execute(async (trx) => {
      const batch = await new ExportRepo(trx).deleteBatch(collectionId, 200);
      const txRefs = new BlobRefRepo(trx);
      for (const sha of batch.shas) await txRefs.release(sha, now());
      return batch;
    });
    for (const sha of new Set(gone.shas)) await refs.collect(sha, blobs);
    if (gone.count === 0) return;
  }
}
