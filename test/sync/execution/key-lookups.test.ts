import { describe, expect, it } from 'vitest';
import { KeyLookups } from '../../../src/sync/execution/key-lookups.ts';
import { keyOf } from '../../../src/sync/execution/page-rows.ts';
import type { ItemRow } from '../../../src/store/items.ts';

type Key = { kind: string; sourceId: string };

/** A store of rows by key that records each batch it is asked for. */
function storeOf(rows: Array<Key & { version: string }>) {
  const byKey = new Map(rows.map((r) => [keyOf(r.kind, r.sourceId), r]));
  const batches: string[][] = [];
  const find = async (keys: Key[]) => {
    batches.push(keys.map((k) => k.sourceId));
    return keys.flatMap((k) => {
      const r = byKey.get(keyOf(k.kind, k.sourceId));
      return r ? [{ kind: r.kind, source_id: r.sourceId, version: r.version } as ItemRow] : [];
    });
  };
  return { byKey, batches, find };
}

describe('stored rows looked up a batch at a time (KeyLookups)', () => {
  it('reads the keys listed after the one asked for with it, up to the batch size', async () => {
    const store = storeOf([{ kind: 'file', sourceId: 'b', version: 'v1' }]);
    const lookups = new KeyLookups(store.find, 3);
    for (const id of ['a', 'b', 'c', 'd']) lookups.expect('file', id);
    expect(await lookups.take('file', 'a')).toBeUndefined();
    expect((await lookups.take('file', 'b'))?.version).toBe('v1');
    expect(await lookups.take('file', 'c')).toBeUndefined();
    expect(await lookups.take('file', 'd')).toBeUndefined();
    expect(store.batches).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('reads a key again once taken, and after the writer forgot it', async () => {
    const store = storeOf([{ kind: 'file', sourceId: 'a', version: 'v1' }]);
    const lookups = new KeyLookups(store.find, 10);
    lookups.expect('file', 'a');
    lookups.expect('file', 'b');
    expect((await lookups.take('file', 'a'))?.version).toBe('v1');
    store.byKey.set(keyOf('file', 'a'), { kind: 'file', sourceId: 'a', version: 'v2' });
    store.byKey.set(keyOf('file', 'b'), { kind: 'file', sourceId: 'b', version: 'v1' });
    lookups.forget(keyOf('file', 'b'));
    expect((await lookups.take('file', 'a'))?.version).toBe('v2');
    expect((await lookups.take('file', 'b'))?.version).toBe('v1');
    expect(store.batches).toEqual([['a', 'b'], ['a'], ['b']]);
  });
});
