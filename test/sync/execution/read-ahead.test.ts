import { describe, expect, it } from 'vitest';
import type { CollectEvent } from '../../../src/connectors/types.ts';
import { DEFAULT_READ_AHEAD, readAhead } from '../../../src/sync/execution/read-ahead.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('a listing read ahead of the writer', () => {
  it('lists ahead, hands every event over in order, and each checkpoint as it was when yielded', async () => {
    const state = { done: 0 };
    let listed = 0;
    // Like the OneDrive connector: the same state object is yielded at every checkpoint and mutated after.
    async function* listing(): AsyncGenerator<CollectEvent> {
      for (let i = 1; i <= 3; i++) {
        listed += 1;
        yield { type: 'deleted', kind: 'file', sourceId: `f${i}` };
        state.done = i;
        yield { type: 'checkpoint', state };
      }
    }
    const seen: unknown[] = [];
    const events = readAhead(() => listing(), new AbortController().signal, { ...DEFAULT_READ_AHEAD, prefetch: 0 });
    const first = await events.next();
    seen.push(first.value);
    // The writer is busy with the first event: the listing has gone on meanwhile.
    await tick();
    expect(listed).toBe(3);
    for await (const event of events) seen.push(event);
    expect(seen).toEqual([
      { type: 'deleted', kind: 'file', sourceId: 'f1' },
      { type: 'checkpoint', state: { done: 1 } },
      { type: 'deleted', kind: 'file', sourceId: 'f2' },
      { type: 'checkpoint', state: { done: 2 } },
      { type: 'deleted', kind: 'file', sourceId: 'f3' },
      { type: 'checkpoint', state: { done: 3 } },
    ]);
  });

  it("raises the listing's failure after the events that came before it, and never lists more than it may hold", async () => {
    let listed = 0;
    async function* listing(): AsyncGenerator<CollectEvent> {
      for (let i = 1; i <= 10; i++) {
        listed += 1;
        yield { type: 'deleted', kind: 'file', sourceId: `f${i}` };
      }
      throw new Error('listing failed');
    }
    const events = readAhead(() => listing(), new AbortController().signal, {
      ...DEFAULT_READ_AHEAD,
      maxEvents: 3,
      prefetch: 0,
    });
    await events.next();
    await tick();
    expect(listed).toBeLessThanOrEqual(5);
    const rest: string[] = [];
    await expect(
      (async () => {
        for await (const event of events) if (event.type === 'deleted') rest.push(event.sourceId);
      })(),
    ).rejects.toThrow('listing failed');
    expect(rest).toEqual(['f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9', 'f10']);
  });
});
