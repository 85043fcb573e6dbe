import type { BlobStore } from '../blobs/types.ts';
import { indexItem, removeItemsFromIndex } from '../search/index.ts';
import { BlobRefRepo } from '../store/blob-refs.ts';
import type { Database } from '../store/db.ts';
import { isHeld } from '../store/holds.ts';
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

/**
 * Purges content an `auto` collection kept only because a legal hold covered it: tombstoned items still holding
 * their blob. Called when a hold is released and after each `auto` run (which also catches a tombstone written
 * while a release was purging). Does nothing while any active hold covers the collection; the hold is looked at
 * again before every batch, so a hold placed meanwhile stops the purge. Returns how many items lost content.
 */
export async function purgeUnheldTombstones(
  db: Database,
  blobs: BlobStore,
  collectionId: string,
  opts: { now: () => string; isHeld?: (collectionId: string) => Promise<boolean> },
): Promise<number> {
  const { now } = opts;
  const held = opts.isHeld ?? ((id: string) => isHeld(db, id));
  const collection = await db.selectFrom('collections').select('type_sync').where('id', '=', collectionId).executeTakeFirst();
  if (collection?.type_sync !== 'auto') return 0;
  const refs = new BlobRefRepo(db);
  let purged = 0;
  for (;;) {
    if (await held(collectionId)) return purged;
    const batch = await new ItemRepo(db).heldTombstones(collectionId, 200);
    if (batch.length === 0) return purged;
    const released = await db.transaction().execute(async (trx) => {
      const shas: string[] = [];
      for (const row of batch) {
        const at = now();
        // Compare-and-swap on holds_ref: a run or another purge touching the row meanwhile keeps counts exact.
        const res = await trx
          .updateTable('items')
          .set({ holds_ref: 0, content_state: 'purged', updated_at: at })
          .where('id', '=', row.id)
          .where('holds_ref', '=', 1)
          .where('tombstoned_at', 'is not', null)
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) !== 1) continue;
        await refs.release(trx, row.sha256!, at);
        // Purged content is no longer searchable, even with include_deleted.
        await indexItem(trx, row, null);
        shas.push(row.sha256!);
      }
      return shas;
    });
    purged += released.length;
    for (const sha of new Set(released)) await refs.collect(sha, blobs);
    if (released.length === 0) return purged;
  }
}
