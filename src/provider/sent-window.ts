// What this process sent under one credential's rate in the last second, as sent. Timers fire late on a busy event
// loop, and the requests due after a late one would follow it at once: this tally keeps them within the rate in any
// sliding second all the same (shared-budget.ts asks it before each request leaves).

export class SentWindow {
  /** The sends of the last second: `sent` from `head` on, adding up to `total`. */
  private sent: { at: number; cost: number }[] = [];
  private head = 0;
  private total = 0;

  record(at: number, cost: number): void {
    this.sent.push({ at, cost });
    this.total += cost;
  }

  /** How long until `cost` more fits in the last second of sends at `rate` (0: now). */
  wait(now: number, rate: number, cost: number): number {
    this.trim(now);
    const allowed = Math.max(cost, Math.ceil(rate - 1e-9));
    // The common case, room in the window, is answered from the running total without walking the sends.
    let excess = this.total + cost - allowed;
    for (let i = this.head; excess > 0 && i < this.sent.length; i++) {
      excess -= this.sent[i].cost;
      if (excess <= 0) return this.sent[i].at + 1000 - now + 1;
    }
    return 0;
  }

  private trim(now: number): void {
    while (this.head < this.sent.length && this.sent[this.head].at <= now - 1000)
      this.total -= this.sent[this.head++].cost;
    if (this.head === this.sent.length) {
      this.sent = [];
      this.head = 0;
      this.total = 0;
    } else if (this.head >= 1024) {
      this.sent = this.sent.slice(this.head);
      this.head = 0;
    }
  }
}
