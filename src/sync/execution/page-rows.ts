// What a flush adds in bulk: new item rows, the blob references they take, and their search documents, written
// with one multi-row statement per table instead of statements per item. Operations that read or rewrite
// existing rows (touch, tombstone) run after `write()`, so they see every row the page inserted before them.
import type { Transaction } from 'kysely';
import { indexNewItems, type IndexableItem } from '../../search/index.ts';
import { BlobRefRepo } from '../../store/blob-refs.ts';
import { ItemRepo, type ItemRow, type NewItemRow } from '../../store/items.ts';
import type { DB } from '../../store/schema.ts';

export function keyOf(kind: string, sourceId: string): string {
  return `${kind}\u0000${sourceId}`;
}

export class PageRows {
  private rows: NewItemRow[] = [];
  private refs: Array<{ sha256: string; size: number }> = [];
  private docs: Array<{ item: IndexableItem; contentText: string | null }> = [];

  constructor(
    private readonly trx: Transaction<DB>,
    private readonly at: string,
  ) {}

  /** The stored rows of these source keys, by keyOf (locked on PostgreSQL, like findByKey's forUpdate). */
  static async existing(
    items: ItemRepo,
    collectionId: string,
    keys: Array<{ kind: string; sourceId: string }>,
  ): Promise<Map<string, ItemRow>> {
    if (keys.length === 0) return new Map();
    const rows = await items.findManyByKeys(collectionId, keys, { forUpdate: true });
    return new Map(rows.map((r) => [keyOf(r.kind, r.source_id), r]));
  }

  insert(row: NewItemRow, contentText: string | null): void {
    this.rows.push(row);
    this.docs.push({ item: row as IndexableItem, contentText });
  }

  acquire(sha256: string, size: number): void {
    this.refs.push({ sha256, size });
  }

  async write(): Promise<void> {
    if (this.rows.length > 0) await new ItemRepo(this.trx).insertMany(this.rows);
    if (this.refs.length > 0) await new BlobRefRepo(this.trx).acquireMany(this.refs, this.at);
    await indexNewItems(this.trx, this.docs);
    this.rows = [];
    this.refs = [];
    this.docs = [];
  }
}
