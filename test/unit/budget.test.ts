import { describe, expect, it } from 'vitest';
import { BudgetRegistry, RequestBudget, sleep, type Clock, type Release } from '../../src/sync/budget.ts';

class FakeClock implements Clock {
  private t = 1_000_000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 0;

  now(): number {
    return this.t;
  }

  timer(ms: number, fn: () => void): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.t + Math.max(0, ms), fn, id });
    return () => {
      this.timers = this.timers.filter((x) => x.id !== id);
    };
  }

  pending(): number {
    return this.timers.length;
  }

  /** Moves time forward, firing due timers in order and letting promise callbacks run between them. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      await flush();
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
    }
    this.t = target;
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** Records when (fake time) and in which order acquisitions were granted. */
function track(clock: FakeClock, budget: RequestBudget, label: string, log: string[], cost = 1, signal?: AbortSignal) {
  const holder: { release?: Release; error?: unknown; at?: number } = {};
  budget.acquire(cost, signal).then(
    (release) => {
      holder.release = release;
      holder.at = clock.now();
      log.push(label);
    },
    (error) => {
      holder.error = error;
    },
  );
  return holder;
}

describe('RequestBudget', () => {
  it('lets a burst through at once, then paces at the configured rate', async () => {
    const clock = new FakeClock();
    const budget = new RequestBudget({ ratePerSecond: 10, burst: 2, concurrency: 100 }, clock);
    const log: string[] = [];
    const start = clock.now();
    const held = ['a', 'b', 'c', 'd'].map((l) => track(clock, budget, l, log));
    await flush();
    expect(log).toEqual(['a', 'b']);
    await clock.advance(99);
    expect(log).toEqual(['a', 'b']);
    await clock.advance(1);
    expect(log).toEqual(['a', 'b', 'c']);
    await clock.advance(100);
    expect(log).toEqual(['a', 'b', 'c', 'd']);
    expect(held.map((h) => h.at! - start)).toEqual([0, 0, 100, 200]);
  });

  it('caps concurrency and hands the freed slot to the next waiter on release', async () => {
    const clock = new FakeClock();
    const budget = new RequestBudget({ ratePerSecond: 1000, burst: 1000, concurrency: 2 }, clock);
    const log: string[] = [];
    const [a, b] = [track(clock, budget, 'a', log), track(clock, budget, 'b', log)];
    track(clock, budget, 'c', log);
    await flush();
    expect(log).toEqual(['a', 'b']);
    expect(budget.state()).toMatchObject({ inFlight: 2, queued: 1 });
    b.release!();
    b.release!(); // idempotent: must not free a second slot
    await flush();
    expect(log).toEqual(['a', 'b', 'c']);
    expect(budget.state()).toMatchObject({ inFlight: 2, queued: 0 });
    a.release!();
    expect(budget.state().inFlight).toBe(1);
  });

  it('serves waiters in arrival order: a costly head is not overtaken by cheap requests', async () => {
    const clock = new FakeClock();
    const budget = new RequestBudget({ ratePerSecond: 1, burst: 5, concurrency: 10 }, clock);
    const log: string[] = [];
    track(clock, budget, 'first', log, 4);
    track(clock, budget, 'costly', log, 5);
    track(clock, budget, 'cheap', log, 1);
    await flush();
    expect(log).toEqual(['first']);
    // 1 token left; 'costly' needs 5 → 4 s. 'cheap' could have run at once but must wait its turn.
    await clock.advance(3999);
    expect(log).toEqual(['first']);
    await clock.advance(1);
    expect(log).toEqual(['first', 'costly']);
    await clock.advance(1000);
    expect(log).toEqual(['first', 'costly', 'cheap']);
  });

  it('lets a request costing more than the burst through with a full bucket, then charges the debt', async () => {
    const clock = new FakeClock();
    const budget = new RequestBudget({ ratePerSecond: 2, burst: 2, concurrency: 10 }, clock);
    const log: string[] = [];
    track(clock, budget, 'huge', log, 5);
    track(clock, budget, 'next', log, 1);
    await flush();
    expect(log).toEqual(['huge']);
    expect(budget.state().tokens).toBe(-3);
    await clock.advance(1999);
    expect(log).toEqual(['huge']);
    await clock.advance(1);
    expect(log).toEqual(['huge', 'next']);
  });

  it('pause blocks every request of the credential until the given time, and only a later pause extends it', async () => {
    const clock = new FakeClock();
    const budget = new RequestBudget({ ratePerSecond: 100, burst: 10, concurrency: 10 }, clock);
    const log: string[] = [];
    track(clock, budget, 'before', log);
    await flush();
    budget.pause(clock.now() + 500);
    budget.pause(clock.now() + 100); // earlier: ignored
    track(clock, budget, 'x', log);
    track(clock, budget, 'y', log);
    await clock.advance(300);
    expect(log).toEqual(['before']);
    budget.pause(clock.now() + 400); // extends to t+700
    await clock.advance(399);
    expect(log).toEqual(['before']);
    await clock.advance(1);
    expect(log).toEqual(['before', 'x', 'y']);
    expect(budget.state().pausedUntil).toBe(clock.now());
  });

  it('removes an aborted waiter from the queue, rejects with the reason and unblocks the ones behind it', async () => {
    const clock = new FakeClock();
    const budget = new RequestBudget({ ratePerSecond: 1, burst: 1, concurrency: 10 }, clock);
    const log: string[] = [];
    track(clock, budget, 'a', log);
    const ac = new AbortController();
    const costly = track(clock, budget, 'costly', log, 1, ac.signal);
    track(clock, budget, 'b', log);
    await flush();
    ac.abort(new Error('run cancelled'));
    await flush();
    expect((costly.error as Error).message).toBe('run cancelled');
    expect(budget.state().queued).toBe(1);
    await clock.advance(1000);
    expect(log).toEqual(['a', 'b']);
    expect(clock.pending()).toBe(0);
  });

  it('rejects at once when the signal is already aborted, and for a negative cost', async () => {
    const budget = new RequestBudget({ ratePerSecond: 1, burst: 1, concurrency: 1 }, new FakeClock());
    await expect(budget.acquire(1, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    await expect(budget.acquire(-1)).rejects.toThrow(RangeError);
    expect(() => new RequestBudget({ ratePerSecond: 0, burst: 1, concurrency: 1 })).toThrow(RangeError);
  });

  it('works on the real clock', async () => {
    const budget = new RequestBudget({ ratePerSecond: 50, burst: 1, concurrency: 5 });
    const started = Date.now();
    const releases = await Promise.all([budget.acquire(), budget.acquire(), budget.acquire()]);
    releases.forEach((r) => r());
    // Two refills of 20 ms each after the burst of one.
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
  });
});

describe('BudgetRegistry', () => {
  it('returns one budget per credential key', async () => {
    const clock = new FakeClock();
    const registry = new BudgetRegistry(clock);
    const config = { ratePerSecond: 1, burst: 1, concurrency: 1 };
    const a = registry.get('zoom:acct-1', config);
    expect(registry.get('zoom:acct-1', { ratePerSecond: 99, burst: 99, concurrency: 99 })).toBe(a);
    expect(a.config.ratePerSecond).toBe(1);
    const b = registry.get('zoom:acct-2', config);
    expect(b).not.toBe(a);
    a.pause(clock.now() + 1000);
    const log: string[] = [];
    track(clock, b, 'other credential', log);
    track(clock, a, 'paused credential', log);
    await flush();
    expect(log).toEqual(['other credential']);
  });
});

describe('sleep', () => {
  it('resolves after the delay on the given clock and rejects on abort', async () => {
    const clock = new FakeClock();
    let done = false;
    void sleep(clock, 50).then(() => (done = true));
    await clock.advance(49);
    expect(done).toBe(false);
    await clock.advance(1);
    expect(done).toBe(true);
    const ac = new AbortController();
    const p = sleep(clock, 50, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    expect(clock.pending()).toBe(0);
  });
});
