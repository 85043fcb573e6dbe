import { describe, expect, it } from 'vitest';
import { QuotaWindow } from '../../src/provider/quota-window.ts';

const T = 1_700_000_000_000;
const quota = (limit: number, remaining: number, at: number) =>
  ({ kind: 'quota', at, limit, windowSeconds: 60, remaining, resetSeconds: 30 }) as const;

describe('a quota window the provider states (Graph resource units)', () => {
  it('never holds a request back before the provider stated a quota', () => {
    const w = new QuotaWindow();
    for (let i = 0; i < 1000; i++) w.record(T + i, 5);
    expect(w.capacity).toBeNull();
    expect(w.wait(T + 1000, 5)).toBe(0);
  });

  it('counts what was spent before the quota was known, and waits until the oldest units leave the window', () => {
    const w = new QuotaWindow(0.95);
    // 480 units at 20 a second, then Graph says: 600 a minute, 120 left.
    for (let i = 0; i < 480; i++) w.record(T + i * 50, 1);
    w.learn(quota(600, 120, T + 24_000), T + 24_000);
    expect(w.capacity).toBe(570);
    expect(w.wait(T + 24_000, 90)).toBe(0);
    for (let i = 0; i < 90; i++) w.record(T + 24_000, 1);
    // Full: the next unit fits when the first one sent (at T) leaves the minute.
    expect(w.wait(T + 30_000, 1)).toBe(60_000 - 30_000 + 1);
    expect(w.wait(T + 60_001, 1)).toBe(0);
    // Two units need the first two gone.
    expect(w.wait(T + 59_000, 2)).toBe(T + 50 + 60_000 - (T + 59_000) + 1);
  });

  it("takes units the provider counted beyond this process's as spent", () => {
    const w = new QuotaWindow(1);
    w.record(T, 100);
    // 600 a minute and 200 left: 300 more than this process sent went elsewhere.
    w.learn(quota(600, 200, T + 1000), T + 1000);
    expect(w.wait(T + 1000, 200)).toBe(0);
    expect(w.wait(T + 1000, 201)).toBeGreaterThan(0);
    // The same answer again adds nothing: the ledger already holds those units.
    w.learn(quota(600, 200, T + 1000), T + 1000);
    expect(w.wait(T + 1000, 200)).toBe(0);
  });
});
