import type { SmallBlobTable } from '../blobs/db-tier.ts';
import type { Executor } from './transaction.ts';

/** Rows per insert: 3 parameters each. */
const ROWS_PER_STATEMENT = 300;

/** The database side of the small-blob tier (blobs/db-tier.ts): content addressed by SHA-256, written once. */
export class SmallBlobRepo implements SmallBlobTable {
  constructor(private readonly db: Executor) {}

  async put(rows: Array<{ sha256: string; bytes: Buffer }>): Promise<void> {
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      await this.db
        .insertInto('small_blobs')
        .values(rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => ({ ...r, size: r.bytes.length })))
        .onConflict((oc) => oc.column('sha256').doNothing())
        .execute();
    }
  }

  async get(sha256: string): Promise<Buffer | null> {
    const row = await this.db.selectFrom('small_blobs').select('bytes').where('sha256', '=', sha256).executeTakeFirst();
    return row ? Buffer.from(row.bytes) : null;
  }

  async size(sha256: string): Promise<number | null> {
    const row = await this.db.selectFrom('small_blobs').select('size').where('sha256', '=', sha256).executeTakeFirst();
    return row ? Number(row.size) : null;
  }

  async present(sha256s: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < sha256s.length; i += ROWS_PER_STATEMENT) {
      const rows = await this.db
        .selectFrom('small_blobs')
        .select('sha256')
        .where('sha256', 'in', sha256s.slice(i, i + ROWS_PER_STATEMENT))
        .execute();
      for (const row of rows) found.add(row.sha256);
    }
    return found;
  }

  async delete(sha256: string): Promise<void> {
    await this.db.deleteFrom('small_blobs').where('sha256', '=', sha256).execute();
  }
}
