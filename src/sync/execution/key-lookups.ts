// The stored rows an item writer looks up, read a batch at a time: the unit's read-ahead tells of the keys its
// listing yields (`expect`), and the writer's lookup of one key reads the rows of the keys listed after it too,
// in one statement instead of one each. The writer alone loads and takes entries, one at a time, and forgets the
// keys it writes, so an entry is never older than the writer's own writes. A row written meanwhile by another
// process is seen as stale as a lookup just before it was; the flush re-reads every row it rewrites, under lock.
import type { ItemRow } from '../../store/items.ts';
import { keyOf } from './page-rows.ts';

type Key = { kind: string; sourceId: string };

/** Keys held listed-but-not-looked-up or looked-up-but-not-taken, at most (items the writer skips stay in them). */
const MAX_HELD = 2_000;

export class KeyLookups {
  private readonly upcoming = new Map<string, Key>();
  private readonly known = new Map<string, ItemRow | null>();

  /** `find`: the stored rows of these keys (ItemRepo.findManyByKeys); `batch`: keys read at once, at most. */
  constructor(
    private readonly find: (keys: Key[]) => Promise<ItemRow[]>,
    private readonly batch: number,
  ) {}

  /** The listing yielded this key: the writer will look it up. */
  expect(kind: string, sourceId: string): void {
    const key = keyOf(kind, sourceId);
    if (this.known.has(key)) return;
    if (this.upcoming.size >= MAX_HELD) this.upcoming.clear();
    this.upcoming.set(key, { kind, sourceId });
  }

  /** The stored row of this key, read now or with an earlier batch; the next lookup of the key reads it again. */
  async take(kind: string, sourceId: string): Promise<ItemRow | undefined> {
    const key = keyOf(kind, sourceId);
    if (!this.known.has(key)) await this.load(key, { kind, sourceId });
    const row = this.known.get(key);
    this.known.delete(key);
    return row ?? undefined;
  }

  /** The writer wrote this key (keyOf): a row read before is stale. */
  forget(key: string): void {
    this.known.delete(key);
    this.upcoming.delete(key);
  }

  private async load(key: string, first: Key): Promise<void> {
    const keys = [first];
    this.upcoming.delete(key);
    for (const [k, next] of this.upcoming) {
      if (keys.length >= this.batch) break;
      keys.push(next);
      this.upcoming.delete(k);
    }
    const rows = await this.find(keys);
    if (this.known.size + keys.length > MAX_HELD) this.known.clear();
    for (const k of keys) this.known.set(keyOf(k.kind, k.sourceId), null);
    for (const r of rows) this.known.set(keyOf(r.kind, r.source_id), r);
  }
}
