// How much of a credential's rate the fleet used in the last second, as one process sees it (shared-budget.ts asks
// before its units or its requests in flight grow, and before clean answers raise a rate: issue 25). The process
// counts the fleet's admissions only in the 100 ms slots it asked in; on a shared store a slot that turned one of
// its requests away counts as the rate used too (the others took its share).

export class RateUse {
  /** The fleet's admissions per slot as this process last counted them, for the slots of the last second. */
  private readonly admitted = new Map<number, number>();
  /** When a slot last turned a request of this process away (epoch ms). */
  private fullAt = -Infinity;

  constructor(
    private readonly slotMs: number,
    /** The store is shared with other processes (Redis, PostgreSQL), not this process's own. */
    private readonly shared: boolean,
  ) {}

  /** Slot `k` answered `total` admissions, this request's among them, of `allowance`. */
  counted(k: number, total: number, cost: number, allowance: number, now: number): void {
    if (!this.admitted.has(k)) this.forget(k);
    this.admitted.set(k, Math.max(this.admitted.get(k) ?? 0, Math.min(total, allowance)));
    if (total - cost >= allowance) this.fullAt = now;
  }

  /** Whether `share` of `rate` was used in the last second. */
  bound(now: number, rate: number, share: number): boolean {
    this.forget(Math.floor(now / this.slotMs));
    let used = 0;
    for (const count of this.admitted.values()) used += count;
    if (used >= share * rate) return true;
    return this.shared && now - this.fullAt < 1000;
  }

  /** Keeps the admissions of the last second before slot `k` and of `k` itself. */
  private forget(k: number): void {
    for (const slot of this.admitted.keys()) if (slot <= k - 1000 / this.slotMs) this.admitted.delete(slot);
  }
}
