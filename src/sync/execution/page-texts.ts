// The search text of a page's stored contents, extracted while the writer goes on with the next items instead of
// before it takes the next one (plain text is read back from the blob store; docx and PDF wait their turn in the
// extractor thread). Every text is in its operation before the flush transaction that writes the item, so an item
// row and its search document commit together: a crash before the commit loses both, and the resumed run collects
// the item again with its document.
import type { ItemOp } from './apply.ts';

type Upsert = Extract<ItemOp, { type: 'upsert' }>;

export class PageTexts {
  private readonly inFlight = new Set<Promise<void>>();

  /** `limit`: extractions under way at once, at most (each holds up to a blob's first bytes read for it). */
  constructor(private readonly limit: number) {}

  /** `op.contentText` is set when `text` settles (null if it rejects); waits while `limit` are under way. */
  async add(op: Upsert, text: Promise<string | null>): Promise<void> {
    const done = text.then(
      (t) => void (op.contentText = t),
      () => void (op.contentText = null),
    );
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
    while (this.inFlight.size > this.limit) await Promise.race(this.inFlight);
  }

  /** Every text added so far is in its operation. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }
}
