// What this process sent under one credential's rate lately, as sent. Timers fire late on a busy event loop, and
// the requests due after a late one would follow it at once: this tally keeps them within the rate all the same,
// over a sliding second and over a window JITTER_MS longer (shared-budget.ts asks it before each request leaves).
//
// Why the longer window: a provider counts a sliding second of arrivals, and a request's way there (the rest of this
// event loop's turn, the network, the provider's front end) takes a little more or less time than the next one's.
// Requests sent one second apart at the rate, the first of them late and bunched with its neighbour, can arrive
// less than a second apart, one more than the rate in a second. So no more than the rate's share of 1000 +
// JITTER_MS ms leaves in any such window either: a provider whose limit is at least rate × (1 + JITTER_MS / 1000)
// (the learned rate keeps 5 % under a stated limit, learned-rate.ts) counts its limit plus one only when a request
// arrives more than JITTER_MS later, relative to another, than it was sent. Evenly spaced requests at the rate never
// wait for it; bunched ones are spread.

/** How much later, relative to another, a request may be counted by the provider than it was sent. */
export const JITTER_MS = 50;

const WINDOWS_MS = [1000, 1000 + JITTER_MS] as const;

export class SentWindow {
  /** The sends of the longest window: `sent` from `heads[1]` on; `heads[w]` and `totals[w]` per window. */
  private sent: { at: number; cost: number }[] = [];
  private readonly heads = [0, 0];
  private readonly totals = [0, 0];

  record(at: number, cost: number): void {
    this.sent.push({ at, cost });
    this.totals[0] += cost;
    this.totals[1] += cost;
  }

  /** How long until `cost` more fits in every window of sends at `rate` (0: now). */
  wait(now: number, rate: number, cost: number): number {
    this.trim(now);
    let longest = 0;
    for (let w = 0; w < WINDOWS_MS.length; w++) {
      const allowed = Math.max(cost, Math.ceil((rate * WINDOWS_MS[w]) / 1000 - 1e-9));
      // The common case, room in the window, is answered from the running total without walking the sends.
      let excess = this.totals[w] + cost - allowed;
      for (let i = this.heads[w]; excess > 0 && i < this.sent.length; i++) {
        excess -= this.sent[i].cost;
        if (excess <= 0) longest = Math.max(longest, this.sent[i].at + WINDOWS_MS[w] - now + 1);
      }
    }
    return longest;
  }

  private trim(now: number): void {
    for (let w = 0; w < WINDOWS_MS.length; w++)
      while (this.heads[w] < this.sent.length && this.sent[this.heads[w]].at <= now - WINDOWS_MS[w])
        this.totals[w] -= this.sent[this.heads[w]++].cost;
    // The longest window's head is the oldest send still counted.
    const oldest = this.heads[1];
    if (oldest === this.sent.length) {
      this.sent = [];
      this.heads.fill(0);
      this.totals.fill(0);
    } else if (oldest >= 1024) {
      this.sent = this.sent.slice(oldest);
      this.heads[0] -= oldest;
      this.heads[1] = 0;
    }
  }
}
