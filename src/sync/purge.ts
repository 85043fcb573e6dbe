import type { Transaction } from 'kysely';
import type { BlobStore } from '../blobs/types.ts';
import { indexItem, removeItemsFromIndex } from '../search/index.ts';
import { BlobRefRepo } from '../store/blob-refs.ts';
import type { Database } from '../store/db.ts';
import { isHeld } from '../store/holds.ts';
import { CursorRepo, ItemRepo, previousVersionsOf, versionColumns, type ItemRow } from '../store/items.ts';
import { RunRepo } from '../store/runs.ts';
import type { DB } from '../store/schema.ts';

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
        for (const v of previousVersionsOf(row)) if (v.holds_ref && v.sha256) shas.push(v.sha256);
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
 * Purges content an `auto` (or `one`) collection kept only because a legal hold covered it: tombstoned items
 * still holding their blob, and superseded versions still holding theirs (their records stay, marked `purged`).
 * Called when a hold is released and after each `auto` run (which also catches what a run wrote while a release was purging).
 * Does nothing while any active hold covers the collection; the hold is looked at again before every batch, so
 * a hold placed meanwhile stops the purge. Returns how many items lost content.
 */
export async function purgeUnheldTombstones(
  db: Database,
  blobs: BlobStore,
  collectionId: string,
  opts: { now: () => string; isHeld?: (collectionId: string) => Promise<boolean> },
): Promise<number> {
  const held = opts.isHeld ?? ((id: string) => isHeld(db, id));
  const collection = await db.selectFrom('collections').select('type_sync').where('id', '=', collectionId).executeTakeFirst();
  // arch keeps everything anyway; only auto tombstones, but a `one` collection re-started under a hold kept versions.
  if (!collection || collection.type_sync === 'arch') return 0;
  const items = new ItemRepo(db);
  const check = () => held(collectionId);
  const tombstones = collection.type_sync === 'auto' ? await purgeBatches(db, blobs, check, () => items.heldTombstones(collectionId, 200), purgeTombstone(opts.now)) : 0;
  return tombstones + (await purgeBatches(db, blobs, check, () => items.withVersionRefs(collectionId, 200), purgeVersions(opts.now)));
}

type Purger = (trx: Transaction<DB>, row: ItemRow) => Promise<string[]>;

/** Batches of rows, each batch in one transaction; blobs nothing references any more are deleted after commit. */
async function purgeBatches(db: Database, blobs: BlobStore, held: () => Promise<boolean>, next: () => Promise<ItemRow[]>, purge: Purger): Promise<number> {
  const refs = new BlobRefRepo(db);
  let purged = 0;
  for (;;) {
    if (await held()) return purged;
    const batch = await next();
    if (batch.length === 0) return purged;
    const released = await db.transaction().execute(async (trx) => {
      const shas: string[] = [];
      for (const row of batch) {
        const gone = await purge(trx, row);
        if (gone.length > 0) purged += 1;
        shas.push(...gone);
      }
      return shas;
    });
    for (const sha of new Set(released)) await refs.collect(sha, blobs);
    if (released.length === 0) return purged;
  }
}

function purgeTombstone(now: () => string): Purger {
  return async (trx, row) => {
    const at = now();
    // Compare-and-swap on holds_ref: a run or another purge touching the row meanwhile keeps counts exact.
    const res = await trx
      .updateTable('items')
      .set({ holds_ref: 0, content_state: 'purged', updated_at: at })
      .where('id', '=', row.id)
      .where('holds_ref', '=', 1)
      .where('tombstoned_at', 'is not', null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return [];
    await new BlobRefRepo(trx as unknown as Database).release(trx, row.sha256!, at);
    // Purged content is no longer searchable, even with include_deleted.
    await indexItem(trx, row, null);
    return [row.sha256!];
  };
}

function purgeVersions(now: () => string): Purger {
  return async (trx, row) => {
    const at = now();
    const versions = previousVersionsOf(row);
    const shas = versions.filter((v) => v.holds_ref && v.sha256).map((v) => v.sha256!);
    const kept = versions.map((v) => (v.holds_ref && v.sha256 ? { ...v, holds_ref: false, content_state: 'purged' } : v));
    // Compare-and-swap on the version list: a run that superseded the item meanwhile keeps its new entry.
    const res = await trx
      .updateTable('items')
      .set({ ...versionColumns(kept), updated_at: at })
      .where('id', '=', row.id)
      .where('previous_versions', '=', row.previous_versions)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return [];
    const refs = new BlobRefRepo(trx as unknown as Database);
    for (const sha of shas) await refs.release(trx, sha, at);
    return shas;
  };
}
