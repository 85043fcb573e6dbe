// How many of a credential's leases one process allows itself (budget-leases.ts): from a start up to the most the
// store holds for the fleet, wider while the process's requests wait for one with the rate to spare (a provider
// answering slowly, shared-budget.ts decides), narrower on a refusal or a server error, back at the start once the
// process no longer needs more than it. Issue 25: 16 requests in flight carry at most 53 a second at 300 ms answers.

/** No widening this long after a narrowing: a provider failing a request in fifty must not be widened against. */
const HOLD_AFTER_NARROW_MS = 5_000;
/** The allowance goes back to its start once no more than the start was held for this long. */
const BACK_TO_START_MS = 10_000;

export class LeaseAllowance {
  private allowed: number;
  /** When a request last waited because this process held its allowance (epoch ms). */
  private waitedAt = -Infinity;
  /** When the store last turned a request away, the fleet holding the most (epoch ms). */
  private refusedAt = -Infinity;
  /** Since when this process has held a lease without a break (epoch ms); null when it holds none. */
  private busySince: number | null = null;
  /** When this process last held more than the start, or widened (epoch ms). */
  private aboveStartAt = -Infinity;
  private narrowedAt = -Infinity;

  constructor(
    private readonly range: { start: number; max: number },
    private readonly now: () => number,
  ) {
    this.allowed = range.start;
  }

  /** The leases this process may hold now. */
  get concurrency(): number {
    if (this.allowed > this.range.start && this.now() - this.aboveStartAt > BACK_TO_START_MS)
      this.allowed = this.range.start;
    return Math.floor(this.allowed);
  }

  /** This process holds `held` leases now. */
  held(held: number): void {
    const now = this.now();
    if (held === 0) this.busySince = null;
    else this.busySince ??= now;
    if (held > this.range.start) this.aboveStartAt = now;
  }

  /** A request waits: this process holds its allowance. */
  waited(): void {
    this.waitedAt = this.now();
  }

  /** A request waits: the store holds the most for the fleet. */
  refused(): void {
    this.refusedAt = this.now();
  }

  /**
   * Whether no more leases can help now: a request waited in the last `ms` and the allowance cannot rise (it is at
   * the most, or `rising` is false), or the fleet holds the most.
   */
  full(ms: number, rising: boolean): boolean {
    const now = this.now();
    if (now - this.refusedAt < ms) return true;
    return now - this.waitedAt < ms && (!rising || this.concurrency >= this.range.max);
  }

  /**
   * One clean answer while the rate had room (`rateRoom`): when requests waited for this process's allowance just
   * now, after a second of being busy and not just after a narrowing, half a lease more, to the most.
   */
  answered(rateRoom: boolean): void {
    const now = this.now();
    if (!rateRoom || now - this.waitedAt >= 200 || now - this.narrowedAt < HOLD_AFTER_NARROW_MS) return;
    if (this.busySince === null || now - this.busySince < 1000) return;
    this.allowed = Math.min(this.range.max, this.allowed + 0.5);
    this.aboveStartAt = now; // needed now: not taken back before it could be used
  }

  /** A refusal or a server error: a quarter less, to no less than the start. */
  narrow(): void {
    this.narrowedAt = this.now();
    this.allowed = Math.max(this.range.start, this.allowed * 0.75);
  }
}
