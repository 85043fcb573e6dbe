import { describe, expect, it } from 'vitest';
import { LeaseAllowance } from '../../src/provider/lease-allowance.ts';

/** An allowance from 4 to 12 on a clock the test moves. */
function allowance() {
  const clock = { t: 1_000_000 };
  const a = new LeaseAllowance({ start: 4, max: 12 }, () => clock.t);
  /** `n` clean answers, 10 ms apart, each with a request waiting for a lease just before it. */
  const answers = (n: number, rateRoom = true) => {
    for (let i = 0; i < n; i++) {
      clock.t += 10;
      a.waited();
      a.answered(rateRoom);
    }
  };
  return { clock, a, answers };
}

describe("a process's allowance of a credential's leases", () => {
  it('widens by half a lease per clean answer once busy for a second, while requests wait and the rate has room', () => {
    const { clock, a, answers } = allowance();
    a.held(4);
    answers(50); // the first half second of being busy: not yet
    expect(a.concurrency).toBe(4);
    clock.t += 600;
    answers(4);
    expect(a.concurrency).toBe(6);
    answers(4, false); // the rate is what binds: no wider
    expect(a.concurrency).toBe(6);
    clock.t += 300;
    a.answered(true); // nothing waited for a lease in the last 200 ms
    expect(a.concurrency).toBe(6);
    answers(100);
    expect(a.concurrency).toBe(12); // never past the most
  });

  it('narrows by a quarter on a refusal, never below its start, and does not widen for five seconds after', () => {
    const { clock, a, answers } = allowance();
    a.held(4);
    clock.t += 1000;
    answers(16);
    expect(a.concurrency).toBe(12);
    a.narrow();
    expect(a.concurrency).toBe(9);
    answers(100); // one second of clean answers: still held
    expect(a.concurrency).toBe(9);
    clock.t += 4000;
    answers(2);
    expect(a.concurrency).toBe(10);
    for (let i = 0; i < 10; i++) a.narrow();
    expect(a.concurrency).toBe(4);
  });

  it('goes back to its start once it held no more than the start for ten seconds, not while it holds more', () => {
    const { clock, a, answers } = allowance();
    a.held(4);
    clock.t += 1000;
    answers(8);
    expect(a.concurrency).toBe(8);
    a.held(8);
    clock.t += 9000;
    a.held(7);
    clock.t += 9000;
    expect(a.concurrency).toBe(8); // held 7 (more than 4) nine seconds ago
    a.held(3);
    clock.t += 10_001;
    expect(a.concurrency).toBe(4);
  });

  it('is full when the fleet holds the most, or when a request waited and it cannot widen', () => {
    const { clock, a, answers } = allowance();
    expect(a.full(1000, true)).toBe(false);
    a.waited();
    expect(a.full(1000, true)).toBe(false); // it can still widen
    expect(a.full(1000, false)).toBe(true); // the rate binds: it will not
    clock.t += 1001;
    expect(a.full(1000, false)).toBe(false);
    a.refused();
    expect(a.full(1000, true)).toBe(true);
    clock.t += 1001;
    a.held(4);
    clock.t += 1000;
    answers(16); // at the most, 12
    expect(a.full(1000, true)).toBe(true);
  });
});
