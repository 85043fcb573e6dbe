import { describe, expect, it } from 'vitest';
import type { Release } from '../../src/provider/budget.ts';
import { ProviderBudgets } from '../../src/provider/budget-registry.ts';
import { createBudgetBackend, type BudgetBackend } from '../../src/provider/budget-backend.ts';
import { SharedBudget } from '../../src/provider/shared-budget.ts';
import type { BudgetConfig } from '../../src/provider/budget.ts';
import { FakeClock } from '../support/fake-clock.ts';

const CLEAN = { status: 200, headers: {} };
const REFUSED = { status: 429, headers: { 'retry-after': '0' } };

function learning(config: BudgetConfig) {
  const clock = new FakeClock();
  const budgets = new ProviderBudgets({ backend: createBudgetBackend({ kind: 'memory' }), clock });
  return { clock, budgets, budget: budgets.get('conf:account:a', config) };
}

/**
 * `waiting` requests ask at once and keep asking: each answer comes back clean after `answerMs` and its request asks
 * again. Returns the most held at once over `ms`; `answer` says how each one comes back.
 */
async function slowProvider(
  t: ReturnType<typeof learning>,
  o: { waiting: number; answerMs: number; ms: number; answer?: () => { status: number; headers: object } },
): Promise<number> {
  let held = 0;
  let most = 0;
  let stopped = false;
  const ask = () => {
    if (stopped) return;
    void t.budget.acquire(1).then((release: Release) => {
      held += 1;
      most = Math.max(most, held);
      t.clock.timer(o.answerMs, () => {
        t.budget.observe((o.answer ?? (() => CLEAN))());
        held -= 1;
        release();
        ask();
      });
    });
  };
  for (let i = 0; i < o.waiting; i++) ask();
  await t.clock.advance(o.ms);
  stopped = true;
  await t.clock.advance(2000);
  return most;
}

describe('a credential whose provider answers slowly', () => {
  it('lets more requests be in flight while they wait for a slot and the rate has room, never more than its most', async () => {
    const t = learning({ ratePerSecond: 1000, concurrency: 6, startConcurrency: 2 });
    // 300 ms answers, 20 requests wanting to go: 2 at first, then up to the most, 6
    expect(await slowProvider(t, { waiting: 20, answerMs: 300, ms: 5000 })).toBe(6);
    expect(t.budget.concurrency).toBe(6);
    // what the custody_provider_budget_concurrency gauge reports
    expect(t.budgets.concurrencies()).toEqual([{ provider: 'conf', credential: 'account:a', concurrency: 6 }]);
    await t.budgets.close();
  });

  it('widens also for answers slower than a second (every lease held between the waves)', async () => {
    const t = learning({ ratePerSecond: 1000, concurrency: 6, startConcurrency: 2 });
    expect(await slowProvider(t, { waiting: 20, answerMs: 1500, ms: 20_000 })).toBe(6);
    await t.budgets.close();
  });

  it('keeps a concurrency without a start fixed', async () => {
    const t = learning({ ratePerSecond: 1000, concurrency: 2 });
    expect(await slowProvider(t, { waiting: 20, answerMs: 300, ms: 5000 })).toBe(2);
    await t.budgets.close();
  });

  it('does not widen while the rate is what binds', async () => {
    // 5 a second at 300 ms answers: the rate is the bound, not the 2 in flight of the start (requests wait for a slot
    // while they wait for their time)
    // (an operator's ceiling of 5: clean answers would raise a rate nothing caps, and then 2 would bind)
    const t = learning({ ratePerSecond: 5, maxRatePerSecond: 5, concurrency: 6, startConcurrency: 2 });
    expect(await slowProvider(t, { waiting: 20, answerMs: 300, ms: 5000 })).toBe(2);
    expect(t.budget.concurrency).toBe(2);
    await t.budgets.close();
  });

  it('goes back towards its start on refusals and server errors, never below it', async () => {
    const t = learning({ ratePerSecond: 1000, concurrency: 8, startConcurrency: 2 });
    expect(await slowProvider(t, { waiting: 20, answerMs: 300, ms: 5000 })).toBe(8);
    // every answer now refused or a server error: in flight falls back to the start, 2, and stays there
    let n = 0;
    const bad = () => (n++ % 2 === 0 ? REFUSED : { status: 503, headers: {} });
    await slowProvider(t, { waiting: 20, answerMs: 300, ms: 5000, answer: bad });
    expect(await slowProvider(t, { waiting: 20, answerMs: 300, ms: 250, answer: bad })).toBe(2);
    await t.budgets.close();
  });
});

describe('a learned rate the service leaves unused', () => {
  it('is not raised past the guess by clean answers while less than four fifths of it is used', async () => {
    const t = learning({ ratePerSecond: 10, concurrency: 100 });
    // 2 a second of 10 for five seconds, every answer clean
    for (let i = 0; i < 10; i++) {
      const release = await t.budget.acquire(1);
      t.budget.observe(CLEAN);
      release();
      await t.clock.advance(500);
    }
    expect(t.budget.rate).toBe(10);
    // all of it used: the same clean answers raise it
    const held = Array.from({ length: 60 }, () =>
      t.budget.acquire(1).then((release) => (t.budget.observe(CLEAN), release())),
    );
    await t.clock.advance(8000);
    await Promise.all(held);
    expect(t.budget.rate).toBeGreaterThan(10);
    await t.budgets.close();
  });
});

describe("a credential's room for more units", () => {
  it('has room while under 95 % of its rate is used and no pause holds', async () => {
    const t = learning({ ratePerSecond: 20, maxRatePerSecond: 20, concurrency: 100 });
    expect(t.budget.hasRoom()).toBe(true);
    // 18 of 20 in the last second: room
    const some = Array.from({ length: 18 }, () => t.budget.acquire(1).then((release) => release()));
    await t.clock.advance(900);
    await Promise.all(some);
    expect(t.budget.hasRoom()).toBe(true);
    await t.clock.advance(1100);
    // more asking than the rate admits: all of it used, no room
    const more = Array.from({ length: 30 }, () => t.budget.acquire(1).then((release) => release()));
    await t.clock.advance(1000);
    expect(t.budget.hasRoom()).toBe(false);
    await t.clock.advance(1000);
    await Promise.all(more);
    await t.clock.advance(1100);
    expect(t.budget.hasRoom()).toBe(true);
    // a pause: no room until it ends
    t.budget.pause(t.clock.now() + 500);
    expect(t.budget.hasRoom()).toBe(false);
    await t.clock.advance(600);
    expect(t.budget.hasRoom()).toBe(true);
    await t.budgets.close();
  });

  it('has no room while every slot is held and a request waits for one, with the concurrency at its most', async () => {
    const t = learning({ ratePerSecond: 1000, concurrency: 2 });
    const [a, b] = [t.budget.acquire(1), t.budget.acquire(1)];
    await t.clock.advance(10);
    expect(t.budget.hasRoom()).toBe(true);
    const c = t.budget.acquire(1);
    await t.clock.advance(100);
    expect(t.budget.hasRoom()).toBe(false);
    (await a)();
    (await b)();
    await t.clock.advance(50);
    (await c)();
    await t.clock.advance(1100);
    expect(t.budget.hasRoom()).toBe(true);
    await t.budgets.close();
  });
});

describe('processes sharing a credential on a shared store', () => {
  it('leaves a process that has not widened its share of the slots another widened to the most', async () => {
    const clock = new FakeClock();
    const inner = createBudgetBackend({ kind: 'memory' });
    const store: BudgetBackend = { ...inner, kind: 'postgres' };
    const config = { ratePerSecond: 1000, concurrency: 8, startConcurrency: 2 };
    const [a, b] = ['a', 'b'].map(
      () =>
        new SharedBudget('conf:account:a', { provider: 'conf', credential: 'account:a' }, config, {
          backend: store,
          clock,
        }),
    );
    let held = 0;
    let most = 0;
    const answered = { a: 0, b: 0 };
    let stopped = false;
    const ask = (budget: SharedBudget, who: 'a' | 'b') => {
      if (stopped) return;
      void budget.acquire(1).then((release) => {
        held += 1;
        most = Math.max(most, held);
        clock.timer(300, () => {
          budget.observe(CLEAN);
          answered[who] += 1;
          held -= 1;
          release();
          ask(budget, who);
        });
      });
    };
    for (let i = 0; i < 20; i++) ask(a, 'a');
    await clock.advance(5000);
    expect(a.concurrency).toBe(8);
    for (let i = 0; i < 20; i++) ask(b, 'b');
    await clock.advance(5000);
    stopped = true;
    await clock.advance(2000);
    // the fleet's cap is the most, 8, whoever widened; b gets slots as a's old leases go back (LEASE_KEEP_MAX_MS)
    expect(answered.b).toBeGreaterThan(20);
    expect(most).toBeLessThanOrEqual(8);
    await Promise.all([a.close(), b.close()]);
  });
});
