// A provider budget on a store several processes share (Redis, PostgreSQL), where every question is a round trip:
// what one process asks at once shares a trip (budget-coalesce.ts), a lease is kept briefly for the next request,
// and the pause is read at most every 20 ms (shared-budget.ts). The store here is the in-process one posing as a
// shared one, each question counted.
import { describe, expect, it, vi } from 'vitest';
import { createBudgetBackend, type BudgetBackend } from '../../src/provider/budget-backend.ts';
import { coalesced } from '../../src/provider/budget-coalesce.ts';
import { SharedBudget } from '../../src/provider/shared-budget.ts';
import { FakeClock, flush } from '../support/fake-clock.ts';

interface Asked {
  count: Array<{ key: string; cost: number }>;
  pause: number;
  lease: number;
  release: string[][];
}

/** A shared store whose every answer waits for `gate` to open (a round trip); `fail` makes the next count fail. */
function countingStore() {
  const inner = createBudgetBackend({ kind: 'memory' });
  const asked: Asked = { count: [], pause: 0, lease: 0, release: [] };
  let opens: Array<() => void> = [];
  const trip = () => new Promise<void>((resolve) => opens.push(resolve));
  const control = { fail: false };
  const store: BudgetBackend = {
    ...inner,
    kind: 'postgres',
    async count(key, cost, ttl) {
      asked.count.push({ key, cost });
      await trip();
      if (control.fail) {
        control.fail = false;
        throw new Error('connection reset');
      }
      return inner.count(key, cost, ttl);
    },
    async pausedUntil(key) {
      asked.pause += 1;
      return inner.pausedUntil(key);
    },
    async tryLease(key, cap, id, ttl) {
      asked.lease += 1;
      return inner.tryLease(key, cap, id, ttl);
    },
    async releaseLeases(key, ids) {
      asked.release.push([...ids]);
      await trip();
      return inner.releaseLeases(key, ids);
    },
  };
  /** Answers every question asked so far. */
  const answer = async () => {
    const now = opens;
    opens = [];
    for (const open of now) open();
    await flush();
  };
  return { store, asked, answer, control };
}

describe('a shared budget store asked by many requests of one process at once', () => {
  it('sums counts asked while one is under way into one, each answered with its total as if counted in turn', async () => {
    const { store, asked, answer } = countingStore();
    const shared = coalesced(store);
    const costs = [1, 1, 2, 1, 3, 1];
    const totals = costs.map((cost) => shared.count('slot-7', cost, 60));
    const other = shared.count('slot-8', 5, 60);
    await flush();
    // the first of each key goes alone; the rest of slot-7 wait for it
    expect(asked.count).toEqual([
      { key: 'slot-7', cost: 1 },
      { key: 'slot-8', cost: 5 },
    ]);
    await answer();
    expect(asked.count.slice(2)).toEqual([{ key: 'slot-7', cost: 1 + 2 + 1 + 3 + 1 }]);
    await answer();
    // counted one after the other in the order asked: 1, 1+1, 1+1+2, …
    expect(await Promise.all(totals)).toEqual([1, 2, 4, 5, 8, 9]);
    expect(await other).toBe(5);
    const last = shared.count('slot-7', 1, 60);
    await answer();
    expect(await last).toBe(10);
  });

  it('fails every count of a batch whose trip failed, and the next batch goes on', async () => {
    const { store, answer, control } = countingStore();
    const shared = coalesced(store);
    const first = shared.count('slot', 1, 60);
    await flush();
    const settled = Promise.allSettled([shared.count('slot', 1, 60), shared.count('slot', 1, 60)]);
    await answer();
    expect(await first).toBe(1);
    control.fail = true;
    await answer();
    expect((await settled).map((s) => s.status)).toEqual(['rejected', 'rejected']);
    const after = shared.count('slot', 1, 60);
    await answer();
    expect(await after).toBe(2);
  });

  it('gives back the leases released while one release is under way in one statement', async () => {
    const { store, asked, answer } = countingStore();
    const shared = coalesced(store);
    for (const id of ['a', 'b', 'c', 'd']) expect(await shared.tryLease('cred', 4, id, 60_000)).toBe(true);
    const releases = ['a', 'b', 'c', 'd'].map((id) => shared.releaseLeases('cred', [id]));
    await flush();
    await answer();
    await answer();
    await Promise.all(releases);
    expect(asked.release).toEqual([['a'], ['b', 'c', 'd']]);
    for (const id of ['e', 'f', 'g', 'h']) expect(await shared.tryLease('cred', 4, id, 60_000)).toBe(true);
  });
});

describe('a budget on a shared store', () => {
  const config = { ratePerSecond: 1000, concurrency: 2 };
  const budgetOn = (store: BudgetBackend, clock: FakeClock, concurrency = config.concurrency) =>
    new SharedBudget(
      'conf:cred',
      { provider: 'conf', credential: 'cred' },
      { ...config, concurrency },
      {
        backend: store,
        clock,
        learn: false,
      },
    );
  /** How an acquire ended: 'granted', or the error it failed with. */
  const outcomeOf = (acquiring: Promise<unknown>) =>
    acquiring.then(
      () => 'granted',
      (e: unknown) => `failed: ${String(e)}`,
    );
  /** Acquires with the store answering (counts wait for a trip); returns the release. */
  const acquire = async (budget: SharedBudget, clock: FakeClock, answer: () => Promise<void>) => {
    let release: (() => void) | undefined;
    const granted = budget.acquire().then((r) => (release = r));
    for (let i = 0; i < 100 && !release; i++) {
      await answer();
      await clock.advance(1);
    }
    await granted;
    return release!;
  };

  it('asks the store again when a count fails (a dropped connection): the request goes, and the error is told', async () => {
    const { store, asked, answer, control } = countingStore();
    const clock = new FakeClock();
    const errors: unknown[] = [];
    const budget = new SharedBudget('conf:cred', { provider: 'conf', credential: 'cred' }, config, {
      backend: store,
      clock,
      learn: false,
      onError: (e) => errors.push(e),
    });
    control.fail = true;
    const outcome = outcomeOf(budget.acquire());
    for (let i = 0; i < 20 && asked.count.length < 2; i++) {
      await answer();
      await clock.advance(50);
    }
    for (let i = 0; i < 20; i++) {
      await answer();
      await clock.advance(5);
    }
    expect(await outcome).toBe('granted');
    expect(asked.count.length).toBeGreaterThanOrEqual(2);
    expect(errors.map(String)).toEqual(['Error: connection reset']);
  });

  it('asks the store again when taking a lease or reading the pause fails', async () => {
    const { store, answer } = countingStore();
    const clock = new FakeClock();
    const failed = { lease: 0, pause: 0 };
    const flaky: BudgetBackend = {
      ...store,
      async tryLease(key, cap, id, ttl) {
        if (failed.lease++ === 0) throw new Error('lease lost');
        return store.tryLease(key, cap, id, ttl);
      },
      async pausedUntil(key) {
        if (failed.pause++ === 0) throw new Error('pause lost');
        return store.pausedUntil(key);
      },
    };
    const outcome = outcomeOf(budgetOn(flaky, clock).acquire());
    for (let i = 0; i < 40; i++) {
      await answer();
      await clock.advance(25);
    }
    expect(await outcome).toBe('granted');
    expect(failed.lease).toBeGreaterThanOrEqual(2);
    expect(failed.pause).toBeGreaterThanOrEqual(2);
  });

  it('gives back a lease the store took while its answer was lost, asking again or giving up', async () => {
    const { store, answer } = countingStore();
    const clock = new FakeClock();
    // The store takes the lease, then the answer is lost: the first `lost` asks, every ask while `lost` is Infinity.
    let lost = 1;
    const lossy: BudgetBackend = {
      ...store,
      async tryLease(key, cap, id, ttl) {
        const taken = await store.tryLease(key, cap, id, ttl);
        if (lost-- > 0) throw new Error('answer lost');
        return taken;
      },
    };
    const settle = async (outcome: Promise<string>, ms: number) => {
      for (let i = 0; i < ms / 25; i++) {
        await answer();
        await clock.advance(25);
      }
      return Promise.race([outcome, flush().then(() => 'still waiting')]);
    };
    // One slot: a lease taken but never answered would hold it for a minute.
    let release: (() => void) | undefined;
    const first = budgetOn(lossy, clock, 1).acquire();
    void first.then((r) => (release = r));
    expect(await settle(outcomeOf(first), 1000)).toBe('granted');
    release!();
    await settle(Promise.resolve(''), 100);
    lost = Infinity;
    // (the store is asked ten times, 250 ms apart, before the request fails)
    expect(await settle(outcomeOf(budgetOn(lossy, clock, 1).acquire()), 3000)).toBe('failed: Error: answer lost');
    // ...and the request that gave up left the slot free for another process
    expect(await settle(outcomeOf(budgetOn(store, clock, 1).acquire()), 1000)).toBe('granted');
  });

  it('while the store fails the pause read, asks it once for everyone, and an aborted request stops waiting', async () => {
    const { store } = countingStore();
    const clock = new FakeClock();
    let asked = 0;
    const down: BudgetBackend = {
      ...store,
      async pausedUntil() {
        asked += 1;
        throw new Error('store down');
      },
    };
    const budget = budgetOn(down, clock);
    const ac = new AbortController();
    const mine = outcomeOf(budget.acquire(1, ac.signal));
    const others = [outcomeOf(budget.acquire()), outcomeOf(budget.acquire())];
    await flush();
    await clock.advance(100);
    // a request asking past the read's 20 ms freshness: still the one read, being asked again every 250 ms
    others.push(outcomeOf(budget.acquire()));
    await flush();
    expect(asked).toBe(1);
    ac.abort(new Error('run cancelled'));
    expect(await Promise.race([mine, flush().then(() => 'still waiting')])).toBe('failed: Error: run cancelled');
    for (let i = 0; i < 12; i++) await clock.advance(250);
    expect(asked).toBe(10);
    expect(await Promise.all(others)).toEqual(Array(3).fill('failed: Error: store down'));
  });

  it('fails the request when the store keeps failing (an outage, not a blip)', async () => {
    const { store, answer, control } = countingStore();
    const clock = new FakeClock();
    const failing: BudgetBackend = {
      ...store,
      async count(key, cost, ttl) {
        control.fail = true;
        return store.count(key, cost, ttl);
      },
    };
    const budget = budgetOn(failing, clock);
    const outcome = outcomeOf(budget.acquire());
    for (let i = 0; i < 100; i++) {
      await answer();
      await clock.advance(50);
    }
    expect(await outcome).toBe('failed: Error: connection reset');
  });

  it('keeps a released lease 20 ms for the next request of this process, then gives it back', async () => {
    const { store, asked, answer } = countingStore();
    const clock = new FakeClock();
    const budget = budgetOn(store, clock);
    for (let i = 0; i < 5; i++) (await acquire(budget, clock, answer))();
    // five requests one after the other, one lease taken from the store and none given back yet
    expect(asked.lease).toBe(1);
    expect(asked.release).toEqual([]);
    await clock.advance(25);
    await answer();
    expect(asked.release).toHaveLength(1);
    (await acquire(budget, clock, answer))();
    expect(asked.lease).toBe(2);
  });

  it('gives a lease back once it was taken two seconds ago, and leaves it to the others for 40 ms', async () => {
    const { store, asked, answer } = countingStore();
    const clock = new FakeClock();
    const budget = budgetOn(store, clock);
    // one request after another for 2.5 s: the lease is reused, then given back and taken again
    const grants: number[] = [];
    while (clock.now() < 1_000_002_500) {
      (await acquire(budget, clock, answer))();
      grants.push(clock.now());
      await clock.advance(10);
    }
    await answer();
    expect(asked.lease).toBe(2);
    expect(asked.release).toEqual([[expect.any(String)]]);
    const gaps = grants.slice(1).map((t, i) => t - grants[i]);
    // requests 12 ms apart (10 between, 2 to be granted), but one 40 ms after the release that gave the slot back:
    // meanwhile it was the others' to take
    expect(gaps.filter((g) => g >= 40)).toHaveLength(1);
  });

  it('counts a kept lease against the cap: another process gets it once it is given back', async () => {
    const { store, answer } = countingStore();
    const clock = new FakeClock();
    const a = budgetOn(store, clock);
    const b = budgetOn(store, clock);
    const releases = [await acquire(a, clock, answer), await acquire(a, clock, answer)];
    for (const release of releases) release();
    // a keeps both leases: b waits until they are given back
    let bGranted = false;
    const bWaits = b.acquire().then((release) => {
      bGranted = true;
      return release;
    });
    await answer();
    await clock.advance(10);
    await answer();
    expect(bGranted).toBe(false);
    for (let i = 0; i < 10 && !bGranted; i++) {
      await clock.advance(10);
      await answer();
    }
    expect(bGranted).toBe(true);
    (await bWaits)();
  });

  it('gives up a request aborted while the store was asked for a lease, the cap being full', async () => {
    const { store, answer } = countingStore();
    let leaseAnswers: Array<() => void> = [];
    const slow: BudgetBackend = {
      ...store,
      tryLease: (key, cap, id, ttl) =>
        new Promise<void>((resolve) => leaseAnswers.push(resolve)).then(() => store.tryLease(key, cap, id, ttl)),
    };
    const clock = new FakeClock();
    const other = budgetOn(slow, clock, 1);
    const taking = other.acquire(0);
    await flush();
    for (const open of leaseAnswers.splice(0)) open();
    const otherRelease = await taking;
    const me = budgetOn(slow, clock, 1);
    const ac = new AbortController();
    const mine = me.acquire(0, ac.signal);
    const outcome = mine.then(
      () => 'granted',
      () => 'rejected',
    );
    await flush();
    // aborted while its lease is asked for; the store then answers that the cap is full
    ac.abort();
    for (const open of leaseAnswers.splice(0)) open();
    await clock.advance(100);
    await answer();
    expect(await Promise.race([outcome, flush().then(() => 'waiting')])).toBe('rejected');
    otherRelease();
    leaseAnswers = [];
  });

  it('gives back the leases it keeps when it closes', async () => {
    const { store, asked, answer } = countingStore();
    const clock = new FakeClock();
    const budget = budgetOn(store, clock);
    (await acquire(budget, clock, answer))();
    expect(asked.release).toEqual([]);
    const closing = budget.close();
    await answer();
    await closing;
    expect(asked.release).toHaveLength(1);
    expect(clock.pending()).toBe(0);
  });

  it('starts no renewing once closed: a request that raced the close leaves no timer behind', async () => {
    const { store, answer } = countingStore();
    const clock = new FakeClock();
    const budget = budgetOn(store, clock);
    const closing = budget.close();
    await answer();
    await closing;
    const intervals = vi.spyOn(globalThis, 'setInterval');
    try {
      (await acquire(budget, clock, answer))();
      await answer();
      expect(intervals).not.toHaveBeenCalled();
    } finally {
      intervals.mockRestore();
    }
  });

  it('reads the shared pause at most once in 20 ms, and sees a pause set elsewhere after that', async () => {
    const { store, asked, answer } = countingStore();
    const clock = new FakeClock();
    const budget = budgetOn(store, clock);
    for (let i = 0; i < 4; i++) (await acquire(budget, clock, answer))();
    const readsAtFirst = asked.pause;
    // four requests within a few ms: one read of the pause
    expect(readsAtFirst).toBe(1);
    // another process is told to back off
    await store.pause('conf:cred', clock.now() + 1000, 60);
    await clock.advance(20);
    let granted = false;
    const next = budget.acquire().then((release) => {
      granted = true;
      release();
    });
    await answer();
    await clock.advance(500);
    await answer();
    expect(granted).toBe(false);
    expect(asked.pause).toBeGreaterThan(readsAtFirst);
    for (let i = 0; i < 60 && !granted; i++) {
      await clock.advance(10);
      await answer();
    }
    await next;
    expect(granted).toBe(true);
  });
});
