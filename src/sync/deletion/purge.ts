import type { Transaction } from 'kysely';
import type { BlobStore } from '../../blobs/types.ts';
import { indexItem, removeItemsFromIndex } from '../../search/index.ts';
import { BlobRefRepo } from '../../store/blob-refs.ts';
import type { Database } from '../../store/db.ts';
import { HoldRepo } from '../../store/holds.ts';
import { CollectionRepo } from '../../store/collections.ts';
import { CursorRepo, ItemRepo, previousVersionsOf, type ItemRow, type PreviousVersion } from '../../store/items.ts';
import { RunRepo } from '../../store/runs.ts';
import { UnitJobRepo } from '../../store/unit-jobs.ts';
import { UnitRepo } from '../../store/units.ts';
import type { DB } from '../../store/schema.ts';

/**
 * Deletes a collection's items, runs, run errors and cursors, and every blob no other collection still
 * references. Items go in batches, each batch with its reference releases in one transaction, so a crash
 * midway leaves counts exact and a second call finishes the job.
 */
export async function purgeCollectionData(
  db: Database,
  blobs: BlobStore,
  collectionId: string,
  now: () => string,
): Promise<void> {
  const items = new ItemRepo(db);
  const refs = new BlobRefRepo(db);
  for (;;) {
    const released = await db.transaction().execute(async (trx) => {
      // Only the rows this statement deleted are released: two deletions of one collection (a retried DELETE,
      // a restart finishing a deletion) may purge at the same time, and each reference must go exactly once.
      const gone = await new ItemRepo(trx).purgeBatch(collectionId, 500);
      const shas: string[] = [];
      for (const row of gone) {
        if (row.holds_ref && row.sha256) shas.push(row.sha256);
        for (const v of previousVersionsOf(row)) if (v.holds_ref && v.sha256) shas.push(v.sha256);
      }
      const txRefs = new BlobRefRepo(trx);
      for (const sha of shas) await txRefs.release(sha, now());
      await removeItemsFromIndex(
        trx,
        gone.map((r) => r.id),
      );
      return { count: gone.length, shas };
    });
    for (const sha of new Set(released.shas)) await refs.collect(sha, blobs);
    // Nothing deleted: either nothing is left, or a concurrent purge took this batch (look again).
    if (released.count === 0 && !(await items.hasAny(collectionId))) break;
  }
  await new UnitJobRepo(db).deleteByCollection(collectionId);
  await new UnitRepo(db).deleteByCollection(collectionId);
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
  const held = opts.isHeld ?? ((id: string) => new HoldRepo(db).isHeld(id));
  const typeSync = await new CollectionRepo(db).typeSync(collectionId);
  // arch keeps everything anyway; only auto tombstones, but a `one` collection re-started under a hold kept versions.
  if (!typeSync || typeSync === 'arch') return 0;
  const items = new ItemRepo(db);
  const scope = { collectionId, held: () => held(collectionId) };
  const tombstones =
    typeSync === 'auto'
      ? await purgeBatches(
          db,
          blobs,
          scope,
          (after) => items.heldTombstones(collectionId, after, 200),
          purgeTombstone(opts.now),
        )
      : 0;
  return (
    tombstones +
    (await purgeBatches(
      db,
      blobs,
      scope,
      (after) => items.withVersionRefs(collectionId, after, 200),
      purgeVersions(opts.now),
    ))
  );
}

type Purger = (trx: Transaction<DB>, row: ItemRow) => Promise<string[]>;

/** Marks a batch transaction rolled back because a hold now covers the collection. */
class HeldMeanwhile extends Error {}

/**
 * Batches of rows in id order, each batch in one transaction; blobs nothing references any more are deleted
 * after commit. Each transaction first asks whether a hold covers the collection (HoldRepo.isHeldLocked), so that a
 * hold acknowledged while the purge runs stops the batch in flight, not only the next one.
 */
async function purgeBatches(
  db: Database,
  blobs: BlobStore,
  scope: { collectionId: string; held: () => Promise<boolean> },
  next: (after: string) => Promise<ItemRow[]>,
  purge: Purger,
): Promise<number> {
  const refs = new BlobRefRepo(db);
  let purged = 0;
  let after = '';
  for (;;) {
    if (await scope.held()) return purged;
    const batch = await next(after);
    if (batch.length === 0) return purged;
    after = batch[batch.length - 1].id;
    const released = await db
      .transaction()
      .execute(async (trx) => {
        if (await new HoldRepo(trx).isHeldLocked(scope.collectionId)) throw new HeldMeanwhile();
        const shas: string[] = [];
        let rows = 0;
        for (const row of batch) {
          const gone = await purge(trx, row);
          if (gone.length > 0) rows += 1;
          shas.push(...gone);
        }
        return { rows, shas };
      })
      .catch((err: unknown) => {
        if (err instanceof HeldMeanwhile) return undefined;
        throw err;
      });
    if (!released) return purged;
    purged += released.rows;
    for (const sha of new Set(released.shas)) await refs.collect(sha, blobs);
  }
}

function purgeTombstone(now: () => string): Purger {
  return async (trx, row) => {
    const at = now();
    // Compare-and-swap on holds_ref: a run or another purge touching the row meanwhile keeps counts exact.
    const sha = await new ItemRepo(trx).purgeTombstoneContent(row.id, at);
    // Release what the row held when this statement changed it, not what it held when the batch was read.
    if (!sha) return [];
    await new BlobRefRepo(trx).release(sha, at);
    // Purged content is no longer searchable, even with include_deleted.
    await indexItem(trx, row, null);
    return [sha];
  };
}

function purgeVersions(now: () => string): Purger {
  return async (trx, row) => {
    const at = now();
    const versions = previousVersionsOf(row);
    // Versions an `arch` collection kept stay until the collection is deleted, even after a switch to `auto`.
    const purgeable = (v: PreviousVersion) => v.holds_ref && v.sha256 !== null && v.kept_for === 'hold';
    const shas = versions.filter(purgeable).map((v) => v.sha256!);
    if (shas.length === 0) return [];
    const kept = versions.map((v) => (purgeable(v) ? { ...v, holds_ref: false, content_state: 'purged' } : v));
    // Compare-and-swap on the version list: a run that superseded the item meanwhile keeps its new entry.
    if (!(await new ItemRepo(trx).replaceVersions(row.id, row.previous_versions, kept, at))) return [];
    const refs = new BlobRefRepo(trx);
    for (const sha of shas) await refs.release(sha, at);
    return shas;
  };
}
