// Fake time for the provider budget's tests: timers fire when a test moves time, in order.
import type { Clock } from '../../src/provider/budget.ts';

/** Fake time that a test moves; timers fire in order, promise callbacks run between them. */
export class FakeClock implements Clock {
  protected timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 0;

  constructor(protected t = 1_000_000_000) {}

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

  /** A stalled event loop: time passes with no timer firing, then every overdue one fires late, at the new time. */
  async stall(ms: number): Promise<void> {
    this.t += ms;
    for (;;) {
      await flush();
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > this.t) break;
      this.timers.shift();
      next.fn();
    }
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

export async function flush(): Promise<void> {
  // The budget's store answers through promises: let them all settle.
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
}
