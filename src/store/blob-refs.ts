import type { Transaction } from 'kysely';
import type { BlobStore } from '../blobs/types.ts';
import type { Database } from './db.ts';
import type { DB } from './schema.ts';

type Executor = Database | Transaction<DB>;

/**
 * Reference counts of content-addressed blobs: one reference per item row (or superseded arch version) that
 * holds the content. A blob file is deleted only by `collect`, which removes the zero-count row and unlinks
 * the file inside one transaction; an `acquire` racing with it waits for that transaction (row lock on
 * PostgreSQL, the write lock on SQLite) and then re-inserts the row, so the acquirer can check that the
 * file still exists after its own commit and fetch the content again if it does not.
 */
export class BlobRefRepo {
  constructor(private db: Database) {}

  async acquire(trx: Executor, sha256: string, size: number, at: string): Promise<void> {
    await trx
      .insertInto('blob_refs')
      .values({ sha256, refs: 1, size, updated_at: at })
      .onConflict((oc) => oc.column('sha256').doUpdateSet((eb) => ({ refs: eb('blob_refs.refs', '+', 1), updated_at: at })))
      .execute();
  }

  /** Drops one reference; returns the count left. */
  async release(trx: Executor, sha256: string, at: string): Promise<number> {
    const row = await trx
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
      const gone = await trx.deleteFrom('blob_refs').where('sha256', '=', sha256).where('refs', '<=', 0).returning('sha256').executeTakeFirst();
      if (!gone) return false;
      await blobs.delete(sha256);
      return true;
    });
  }

  /** A blob that was committed but never referenced (a failed verification, a fenced-out run): delete unless used. */
  async discard(sha256: string, size: number, blobs: BlobStore, at: string): Promise<boolean> {
    await this.db.insertInto('blob_refs').values({ sha256, refs: 0, size, updated_at: at }).onConflict((oc) => oc.doNothing()).execute();
    return this.collect(sha256, blobs);
  }
}
