import { describe, expect, it } from 'vitest';
import { sleep, type Release } from '../../src/provider/budget.ts';
import { FakeClock, flush } from '../support/fake-clock.ts';
import { localBudget, ProviderBudgets } from '../../src/provider/budget-registry.ts';
import { slotAllowance, type SharedBudget } from '../../src/provider/shared-budget.ts';
import { createBudgetBackend } from '../../src/provider/budget-backend.ts';

/** Records when (fake time) and in which order acquisitions were granted. */
function track(clock: FakeClock, budget: SharedBudget, label: string, log: string[], cost = 1, signal?: AbortSignal) {
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

describe('provider budget in one process', () => {
  it('spaces requests evenly at the configured rate', async () => {
    const clock = new FakeClock();
    const budget = localBudget({ ratePerSecond: 10, concurrency: 100 }, clock);
    const log: string[] = [];
    const start = clock.now();
    const held = ['a', 'b', 'c', 'd'].map((l) => track(clock, budget, l, log));
    await flush();
    expect(log).toEqual(['a']);
    await clock.advance(99);
    expect(log).toEqual(['a']);
    await clock.advance(1);
    expect(log).toEqual(['a', 'b']);
    await clock.advance(200);
    expect(log).toEqual(['a', 'b', 'c', 'd']);
    expect(held.map((h) => h.at! - start)).toEqual([0, 100, 200, 300]);
  });

  it('never lets more than the rate leave in any one second after the event loop stalled', async () => {
    const clock = new FakeClock();
    const budget = localBudget({ ratePerSecond: 40, concurrency: 1000 }, clock);
    const log: string[] = [];
    const held = Array.from({ length: 160 }, (_, i) => track(clock, budget, String(i), log));
    await clock.advance(410);
    // 60 ms without a timer firing: the two requests due in it leave late, together, and those due just after
    // must not follow them at once (a provider counting a sliding second would see more than the rate).
    await clock.stall(60);
    await clock.advance(6000);
    const times = held.map((h) => h.at!).sort((a, b) => a - b);
    expect(times).toHaveLength(160);
    for (let i = 0; i + 40 < times.length; i++) expect(times[i + 40] - times[i]).toBeGreaterThanOrEqual(1000);
  });

  it('keeps a resource-unit minute the provider states, however fast it spent before stating it', async () => {
    const clock = new FakeClock();
    const budgets = new ProviderBudgets({ backend: createBudgetBackend({ kind: 'memory' }), clock });
    const budget = budgets.get('edrive:w', { ratePerSecond: 20, concurrency: 1000 });
    const log: string[] = [];
    const held = Array.from({ length: 250 }, (_, i) => track(clock, budget, String(i), log));
    // Four seconds at the starting rate, then Graph's headers: 120 units a minute, 40 of them left.
    await clock.advance(4000);
    budget.observe({
      status: 200,
      headers: { 'ratelimit-limit': '120', 'ratelimit-remaining': '40', 'ratelimit-reset': '56' },
    });
    await clock.advance(100_000);
    const times = held.filter((h) => h.at !== undefined).map((h) => h.at!);
    // 95 % of 120 in any sliding minute, the 80 or so sent before the headers included.
    for (const t of times) expect(times.filter((u) => u > t - 60_000 && u <= t).length).toBeLessThanOrEqual(114);
    expect(times.length).toBeGreaterThan(140);
    await budgets.close();
  });

  it('gives every 100 ms slot its share so that ten slots add up to the rate', () => {
    for (const rate of [1, 2.5, 19, 20, 48, 57.3]) {
      for (const k of [0, 7, 123_456]) {
        let sum = 0;
        for (let i = 0; i < 10; i++) sum += slotAllowance(rate, k + i);
        expect(Math.abs(sum - rate)).toBeLessThanOrEqual(1);
      }
    }
    expect(slotAllowance(20, 5)).toBe(2);
  });

  it('caps concurrency and hands the freed slot to the next waiter on release', async () => {
    const clock = new FakeClock();
    const budget = localBudget({ ratePerSecond: 1000, concurrency: 2 }, clock);
    const log: string[] = [];
    const [a, b] = [track(clock, budget, 'a', log), track(clock, budget, 'b', log)];
    track(clock, budget, 'c', log);
    await clock.advance(50);
    expect(log).toEqual(['a', 'b']);
    b.release!();
    b.release!(); // idempotent: must not free a second slot
    await clock.advance(50);
    expect(log).toEqual(['a', 'b', 'c']);
    track(clock, budget, 'd', log);
    await clock.advance(100);
    expect(log).toEqual(['a', 'b', 'c']);
    a.release!();
    await clock.advance(50);
    expect(log).toEqual(['a', 'b', 'c', 'd']);
  });

  it('pause blocks every request of the credential until the given time, and only a later pause extends it', async () => {
    const clock = new FakeClock();
    const budget = localBudget({ ratePerSecond: 100, concurrency: 10 }, clock);
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
    await clock.advance(100);
    expect(log).toEqual(['before', 'x', 'y']);
  });

  it('rejects a waiter whose signal aborts, with the reason, and serves the others', async () => {
    const clock = new FakeClock();
    const budget = localBudget({ ratePerSecond: 1, concurrency: 10 }, clock);
    const log: string[] = [];
    track(clock, budget, 'a', log);
    await flush();
    const ac = new AbortController();
    const waiting = track(clock, budget, 'aborted', log, 1, ac.signal);
    track(clock, budget, 'b', log);
    await flush();
    ac.abort(new Error('run cancelled'));
    await flush();
    expect((waiting.error as Error).message).toBe('run cancelled');
    // The slot the aborted request had taken is spent fleet-wide; 'b' goes in the one after.
    await clock.advance(2000);
    expect(log).toEqual(['a', 'b']);
  });

  it('rejects at once when the signal is already aborted, and a negative cost or a zero rate', async () => {
    const budget = localBudget({ ratePerSecond: 1, concurrency: 1 }, new FakeClock());
    await expect(budget.acquire(1, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    await expect(budget.acquire(-1)).rejects.toThrow(RangeError);
    expect(() => localBudget({ ratePerSecond: 0, concurrency: 1 })).toThrow(RangeError);
  });

  it('keeps one budget per credential key and reports its rate per provider and credential', async () => {
    const clock = new FakeClock();
    const budgets = new ProviderBudgets({ backend: createBudgetBackend({ kind: 'memory' }), clock });
    const a = budgets.get('conf:wallet-1', { ratePerSecond: 48, concurrency: 8 });
    expect(budgets.get('conf:wallet-1', { ratePerSecond: 99, concurrency: 99 })).toBe(a);
    budgets.get('edrive:wallet-2', { ratePerSecond: 20, concurrency: 4 });
    // A 429 stating Zoom's per-second limit: the rate drops to 95 % of it.
    a.observe({
      status: 429,
      headers: { 'x-ratelimit-type': 'QPS', 'x-ratelimit-limit': '20', 'retry-after': '1' },
      waitMs: 1000,
    });
    expect(budgets.learnedRates()).toEqual([
      { provider: 'conf', credential: 'wallet-1', rate: 19 },
      { provider: 'edrive', credential: 'wallet-2', rate: 20 },
    ]);
    a.pause(clock.now() + 1000);
    const log: string[] = [];
    track(clock, budgets.get('edrive:wallet-2', { ratePerSecond: 1, concurrency: 1 }), 'other credential', log);
    track(clock, a, 'paused credential', log);
    await flush();
    expect(log).toEqual(['other credential']);
    await clock.advance(1000);
    expect(log).toEqual(['other credential', 'paused credential']);
    await budgets.close();
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
