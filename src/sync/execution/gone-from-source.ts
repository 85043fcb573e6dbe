// What a run learns is gone from the source, in its collection's terms: an `auto` collection tombstones the item;
// `arch` and `one` never remove anything and only record that the source deleted it. Learned one item at a time
// (a `deleted` event, a download answered "gone") or for a whole listing (`listing_complete`: what the listing did
// not see).
import type { ItemRepo, ItemRow } from '../../store/items.ts';
import type { ItemOp } from './apply.ts';

export type GoneOp = Extract<ItemOp, { type: 'tombstone' | 'mark_deleted' }>;

const goneType = (typeSync: string): GoneOp['type'] => (typeSync === 'auto' ? 'tombstone' : 'mark_deleted');

/** The op recording that the source no longer has `row`; null when it is already recorded. */
export function goneOp(
  typeSync: string,
  row: Pick<ItemRow, 'kind' | 'source_id' | 'tombstoned_at' | 'deleted_at_source'>,
): GoneOp | null {
  const type = goneType(typeSync);
  if (type === 'tombstone' ? row.tombstoned_at : row.deleted_at_source) return null;
  return { type, kind: row.kind, sourceId: row.source_id };
}

/**
 * Hands `write` the ops for what `custodian`'s listing of `kinds` did not see, a batch at a time, until none is
 * left. `write` must store its batch before it returns: the next batch is read from what is stored.
 */
export async function sweepUnseen(
  items: ItemRepo,
  q: { collectionId: string; custodian: string; kinds: string[]; listingRunId: string; typeSync: string },
  batch: number,
  write: (ops: GoneOp[]) => Promise<void>,
): Promise<void> {
  const type = goneType(q.typeSync);
  let previous = '';
  for (;;) {
    const unseen = await items.unseen({
      collectionId: q.collectionId,
      custodian: q.custodian,
      kinds: q.kinds,
      listingRunId: q.listingRunId,
      already: type === 'tombstone' ? 'tombstoned' : 'deleted_at_source',
      limit: batch,
    });
    const marker = unseen.map((r) => r.id).join(',');
    // Every batch changes the rows it selects; the same batch twice means nothing can progress.
    if (unseen.length === 0 || marker === previous) return;
    previous = marker;
    await write(unseen.map((r) => ({ type, kind: r.kind, sourceId: r.source_id })));
  }
}
