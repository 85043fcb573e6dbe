import { describe, expect, it } from 'vitest';
import type { ItemOp } from '../../../src/sync/execution/apply.ts';
import { PageTexts } from '../../../src/sync/execution/page-texts.ts';

type Upsert = Extract<ItemOp, { type: 'upsert' }>;

function upsert(sourceId: string): Upsert {
  return {
    type: 'upsert',
    input: { kind: 'file', sourceId, name: sourceId, path: `/${sourceId}`, custodian: 'u1', metadata: {} },
    content: 'none',
  };
}

function deferred() {
  let resolve!: (t: string | null) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<string | null>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Lets every callback that can run without outside input run (no timers). */
const drain = async () => {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
};

describe('search texts of a page (PageTexts)', () => {
  it('settle waits for every text and puts each in its operation; a failed one is null', async () => {
    const texts = new PageTexts(8);
    const ops = ['a', 'b', 'c'].map(upsert);
    const pending = ops.map(() => deferred());
    for (const [i, op] of ops.entries()) await texts.add(op, pending[i].promise);
    let settled = false;
    const done = texts.settle().then(() => (settled = true));
    pending[0].resolve('alpha');
    pending[2].reject(new Error('unreadable'));
    await drain();
    expect(settled).toBe(false);
    pending[1].resolve(null);
    await done;
    expect(ops.map((o) => o.contentText)).toEqual(['alpha', null, null]);
  });

  it('holds the writer while `limit` texts are under way', async () => {
    const texts = new PageTexts(2);
    const pending = [deferred(), deferred(), deferred()];
    await texts.add(upsert('a'), pending[0].promise);
    await texts.add(upsert('b'), pending[1].promise);
    let third = false;
    const added = texts.add(upsert('c'), pending[2].promise).then(() => (third = true));
    await drain();
    expect(third).toBe(false);
    pending[1].resolve('b');
    await added;
    expect(third).toBe(true);
  });
});
