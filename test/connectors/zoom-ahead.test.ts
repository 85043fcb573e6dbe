import { describe, expect, it } from 'vitest';
import { inOrderAhead } from '../../src/connectors/zoom/ahead.ts';
import { startZoomSandbox } from '../../sandbox/zoom/index.ts';
import { expectedItems, filters, MiniEngine, pair, sel, session, testConnector } from './zoom-harness.ts';

/** fetch(i) that stays pending until the test settles it; records the order in which fetches were started. */
function controlled() {
  const started: number[] = [];
  const settle = new Map<number, { resolve: (v: string) => void; reject: (e: Error) => void }>();
  const fetch = (i: number) => {
    started.push(i);
    return new Promise<string>((resolve, reject) => settle.set(i, { resolve, reject }));
  };
  return { started, settle, fetch };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('inOrderAhead (a unit lists its next windows while it hands over this one)', () => {
  it('starts up to `depth` listings at once and yields them in order, whatever order they answer in', async () => {
    const c = controlled();
    const walk = inOrderAhead(2, 7, 3, c.fetch);
    const first = walk.next();
    await tick();
    expect(c.started).toEqual([2, 3, 4]);
    c.settle.get(4)!.resolve('w4');
    c.settle.get(3)!.resolve('w3');
    await tick();
    // Window 2 has not answered: nothing is handed over before it.
    c.settle.get(2)!.resolve('w2');
    expect(await first).toEqual({ value: 'w2', done: false });
    expect(await walk.next()).toEqual({ value: 'w3', done: false });
    expect(c.started).toEqual([2, 3, 4, 5]);
    expect(await walk.next()).toEqual({ value: 'w4', done: false });
    expect(c.started).toEqual([2, 3, 4, 5, 6]);
    c.settle.get(5)!.resolve('w5');
    c.settle.get(6)!.resolve('w6');
    expect(await walk.next()).toEqual({ value: 'w5', done: false });
    expect(await walk.next()).toEqual({ value: 'w6', done: false });
    expect((await walk.next()).done).toBe(true);
    expect(c.started).toEqual([2, 3, 4, 5, 6]);
  });

  it('a failure ahead surfaces at its turn, after every earlier listing was handed over', async () => {
    const c = controlled();
    const walk = inOrderAhead(0, 3, 3, c.fetch);
    const first = walk.next();
    await tick();
    c.settle.get(1)!.reject(new Error('window 1 failed'));
    await tick();
    c.settle.get(0)!.resolve('w0');
    expect(await first).toEqual({ value: 'w0', done: false });
    await expect(walk.next()).rejects.toThrow('window 1 failed');
  });

  it('listings started ahead of a walk that stopped are let go, failures included', async () => {
    const c = controlled();
    const walk = inOrderAhead(0, 3, 3, c.fetch);
    const first = walk.next();
    await tick();
    c.settle.get(0)!.resolve('w0');
    await first;
    await walk.return(undefined);
    c.settle.get(1)!.reject(new Error('nobody waits for this'));
    c.settle.get(2)!.resolve('w2');
    // An unhandled rejection would fail the test run.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(c.started).toEqual([0, 1, 2]);
  });

  it('depth 1 is the walk in sequence', async () => {
    const c = controlled();
    const walk = inOrderAhead(0, 2, 1, c.fetch);
    const first = walk.next();
    await tick();
    expect(c.started).toEqual([0]);
    c.settle.get(0)!.resolve('w0');
    await first;
    expect(c.started).toEqual([0]);
  });
});

describe('zoom: an owner walked window by window', () => {
  it("has several of the owner's month windows listed at once against a slow Zoom, and collects exactly what a walk in sequence does", async () => {
    // Zoom answers each API request 40 ms late: one listing at a time would keep one request in flight.
    const sandbox = await startZoomSandbox({ seed: 11, users: 1, meetingsPerUser: 6, latencyMs: 40 });
    try {
      const connector = testConnector(sandbox);
      const grant = await pair(connector);
      // Meetings' metadata only: no downloads, no summaries, so what is in flight is the recordings listings.
      const f = filters({
        account_owners: sel({ selected: [sandbox.tenant.users[0].id] }),
        content_selections: { all_selected: false, selected: [], excluded: [] },
      });
      sandbox.inFlight.resetPeak();
      const engine = new MiniEngine(connector, session(connector, grant).ctx);
      await engine.run(f);
      const listings = sandbox.requests.filter((r) => /^\/v2\/users\/[^/]+\/recordings/.test(r.path));
      // Six or seven month windows of a 180-day lookback, and the two trash listings.
      expect(listings.length).toBeGreaterThanOrEqual(8);
      expect(sandbox.inFlight.peak).toBeGreaterThanOrEqual(3);
      expect([...engine.stored.keys()].sort()).toEqual([...expectedItems(sandbox, f).items.keys()].sort());
    } finally {
      await sandbox.close();
    }
  });
});
