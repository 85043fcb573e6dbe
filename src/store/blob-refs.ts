import { deleteBlob } from '../blobs/db-tier.ts';
import type { BlobStore } from '../blobs/types.ts';
import { SmallBlobRepo } from './small-blobs.ts';
import { batchedCalls } from './batched-calls.ts';
import type { Executor } from './transaction.ts';

/** Rolls back an orphan deletion that found an item still holding the content. */
class ClaimedBlob extends Error {}

/**
 * Reference counts of content-addressed blobs: one reference per item row (or superseded version it keeps) that
 * holds the content. A blob file is deleted only by `collect`, which removes the zero-count row and unlinks
 * the file inside one transaction; an `acquire` racing with it waits for that transaction (row lock on
 * PostgreSQL, the write lock on SQLite) and then re-inserts the row, so the acquirer can check that the
 * file still exists after its own commit and fetch the content again if it does not.
 */
export class BlobRefRepo {
  constructor(private readonly db: Executor) {}

  async acquire(sha256: string, size: number, at: string): Promise<void> {
    await this.db
      .insertInto('blob_refs')
      .values({ sha256, refs: 1, size, updated_at: at })
      .onConflict((oc) =>
        oc.column('sha256').doUpdateSet((eb) => ({ refs: eb('blob_refs.refs', '+', 1), updated_at: at })),
      )
      .execute();
  }

  /** Drops one reference; returns the count left. */
  async release(sha256: string, at: string): Promise<number> {
    const row = await this.db
      .updateTable('blob_refs')
      .set((eb) => ({ refs: eb('refs', '-', 1), updated_at: at }))
      .where('sha256', '=', sha256)
      .returning('refs')
      .executeTakeFirst();
    return row?.refs ?? 0;
  }

  async refs(sha256: string): Promise<number> {
    const row = await this.db.selectFrom('blob_refs').select('refs').where('sha256', '=', sha256).executeTakeFirst();
    return row?.refs ?? 0;
  }

  /** Deletes the blob when nothing references it any more; returns whether it was deleted. */
  async collect(sha256: string, blobs: BlobStore): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const gone = await trx
        .deleteFrom('blob_refs')
        .where('sha256', '=', sha256)
        .where('refs', '<=', 0)
        .returning('sha256')
        .executeTakeFirst();
      if (!gone) return false;
      await deleteBlob(blobs, new SmallBlobRepo(trx), sha256);
      return true;
    });
  }

  /**
   * Notes a blob just committed, before the item that will reference it is written: a zero-count row whose fresh
   * `updated_at` keeps the orphan sweep away from it. If the process dies before the item write, the row stays
   * at zero and ages, and the sweep deletes the blob. Resolves once the row is written (outside a transaction:
   * committed); notes asked while another is being written go together in the next statement (pendingNotes).
   */
  async noteCommitted(sha256: string, size: number, at: string): Promise<void> {
    if (this.db.isTransaction) return writeNotes(this.db, [{ sha256, size, at }]);
    let note = pendingNotes.get(this.db);
    if (!note) {
      const db = this.db;
      note = batchedCalls<Note, void>(async (_key, notes) => {
        await writeNotes(db, notes);
        return notes.map(() => undefined);
      }, NOTES_PER_STATEMENT);
      pendingNotes.set(this.db, note);
    }
    return note('', { sha256, size, at });
  }

  /** noteCommitted for many blobs at once, in as few statements as they fit (content a store held until now). */
  async noteAll(notes: Note[]): Promise<void> {
    for (let i = 0; i < notes.length; i += NOTES_PER_STATEMENT)
      await writeNotes(this.db, notes.slice(i, i + NOTES_PER_STATEMENT));
  }

  /**
   * acquire for many blobs in one statement: one reference per entry, summed per blob first (one statement may not
   * change a row twice).
   */
  async acquireMany(blobs: Array<{ sha256: string; size: number }>, at: string): Promise<void> {
    const sums = new Map<string, { sha256: string; size: number; refs: number }>();
    for (const b of blobs) {
      const s = sums.get(b.sha256);
      if (s) s.refs += 1;
      else sums.set(b.sha256, { sha256: b.sha256, size: b.size, refs: 1 });
    }
    // in one order for every transaction: two pages taking references to the same contents lock their rows alike
    const rows = [...sums.values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
    for (let i = 0; i < rows.length; i += 500) {
      await this.db
        .insertInto('blob_refs')
        .values(rows.slice(i, i + 500).map((r) => ({ ...r, updated_at: at })))
        .onConflict((oc) =>
          oc
            .column('sha256')
            .doUpdateSet((eb) => ({ refs: eb('blob_refs.refs', '+', eb.ref('excluded.refs')), updated_at: at })),
        )
        .execute();
    }
  }

  /** Zero-count rows untouched since `before` (orphans of a crash, or a collect that never ran). */
  async staleUnreferenced(before: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('blob_refs')
      .select('sha256')
      .where('refs', '<=', 0)
      .where('updated_at', '<', before)
      .orderBy('updated_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.sha256);
  }

  /**
   * Deletes an orphan: only if its row is still at zero and still older than `before` when the transaction takes
   * it (a live run noting or acquiring the same content meanwhile wins), and no item row claims the content.
   */
  async collectStale(sha256: string, before: string, blobs: BlobStore): Promise<'deleted' | 'kept' | 'claimed'> {
    return this.db
      .transaction()
      .execute(async (trx) => {
        const gone = await trx
          .deleteFrom('blob_refs')
          .where('sha256', '=', sha256)
          .where('refs', '<=', 0)
          .where('updated_at', '<', before)
          .returning('sha256')
          .executeTakeFirst();
        if (!gone) return 'kept';
        // The counts are exact by construction; an item still holding the content means they are not: keep it.
        const claimed = await trx
          .selectFrom('items')
          .select('id')
          .where('sha256', '=', sha256)
          .where('holds_ref', '=', 1)
          .limit(1)
          .executeTakeFirst();
        if (claimed) throw new ClaimedBlob();
        await deleteBlob(blobs, new SmallBlobRepo(trx), sha256);
        return 'deleted' as const;
      })
      .catch((err: unknown) => {
        if (err instanceof ClaimedBlob) return 'claimed' as const;
        throw err;
      });
  }

  /** A blob that was committed but never referenced (a failed verification, a fenced-out run): delete unless used. */
  async discard(sha256: string, size: number, blobs: BlobStore, at: string): Promise<boolean> {
    await this.db
      .insertInto('blob_refs')
      .values({ sha256, refs: 0, size, updated_at: at })
      .onConflict((oc) => oc.doNothing())
      .execute();
    return this.collect(sha256, blobs);
  }
}

export interface Note {
  sha256: string;
  size: number;
  at: string;
}

/** Rows per note statement: 4 parameters each. */
const NOTES_PER_STATEMENT = 500;

/**
 * Per database handle (never a transaction), group commit for noteCommitted: notes asked while a statement is being
 * written go together in the next. None resolves before its own row is written, so the orphan sweep finds every blob
 * whose caller went on (a crash before that loses the caller too).
 */
const pendingNotes = new WeakMap<Executor, (key: string, note: Note) => Promise<void>>();

/** One statement; a blob noted twice gets its latest time (a statement may not change a row twice). */
async function writeNotes(db: Executor, notes: Note[]): Promise<void> {
  const latest = new Map<string, Note>();
  for (const n of notes) {
    const seen = latest.get(n.sha256);
    if (!seen || seen.at < n.at) latest.set(n.sha256, n);
  }
  await db
    .insertInto('blob_refs')
    .values([...latest.values()].map((n) => ({ sha256: n.sha256, refs: 0, size: n.size, updated_at: n.at })))
    .onConflict((oc) => oc.column('sha256').doUpdateSet((eb) => ({ updated_at: eb.ref('excluded.updated_at') })))
    .execute();
}
