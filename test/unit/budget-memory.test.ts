import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBudgetBackend } from '../../src/provider/budget-backend.ts';

describe('the in-process budget backend (embedded default)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it("counts within a window that starts at the key's first count; a later count does not extend it", async () => {
    const backend = createBudgetBackend({ kind: 'memory' });
    expect(await backend.count('slot', 1, 1)).toBe(1);
    vi.advanceTimersByTime(600);
    expect(await backend.count('slot', 2, 1)).toBe(3);
    expect(await backend.count('other', 1, 1)).toBe(1);
    // 1.1 s after the first count: that window is over, whatever was counted since
    vi.advanceTimersByTime(500);
    expect(await backend.count('slot', 1, 1)).toBe(1);
  });

  it('keeps the later of two pauses, and forgets a pause after its time to live', async () => {
    const backend = createBudgetBackend({ kind: 'memory' });
    const t = Date.now();
    expect(await backend.pausedUntil('cred')).toBe(0);
    await backend.pause('cred', t + 5000, 60);
    await backend.pause('cred', t + 1000, 60);
    expect(await backend.pausedUntil('cred')).toBe(t + 5000);
    await backend.pause('cred', t + 7000.4, 60);
    expect(await backend.pausedUntil('cred')).toBe(t + 7001);
    vi.advanceTimersByTime(60_001);
    expect(await backend.pausedUntil('cred')).toBe(0);
  });

  it('grants at most `cap` leases at once, and a released or lapsed one to the next', async () => {
    const backend = createBudgetBackend({ kind: 'memory' });
    expect(await backend.tryLease('cred', 2, 'a', 1000)).toBe(true);
    expect(await backend.tryLease('cred', 2, 'b', 1000)).toBe(true);
    expect(await backend.tryLease('cred', 2, 'c', 1000)).toBe(false);
    await backend.releaseLeases('cred', ['a']);
    expect(await backend.tryLease('cred', 2, 'c', 1000)).toBe(true);
    vi.advanceTimersByTime(1001);
    expect(await backend.tryLease('cred', 2, 'd', 1000)).toBe(true);
  });
});
