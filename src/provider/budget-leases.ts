// The concurrency half of a provider budget (shared-budget.ts): the requests in flight per credential are leases in
// the budget's store, at most the credential's concurrency in the whole fleet, so that a killed process's slots lapse
// (LEASE_TTL_MS) instead of being lost. On a shared store a lease is two round trips (take, give back): this process
// keeps one it just used for its next request, for a moment and for at most two seconds of reuse.
import { randomUUID } from 'node:crypto';
import { abortReason, askStore, type Clock, type Release } from './budget.ts';
import type { BudgetBackend } from './budget-backend.ts';
import { LeaseAllowance } from './lease-allowance.ts';

const LEASE_TTL_MS = 60_000;
const LEASE_POLL_MS = 20;
/** How long a shared store's lease no request uses is kept for the next request of this process. */
const LEASE_LINGER_MS = 20;
/**
 * A lease taken from the shared store longer ago than this goes back to it when released, kept or not, and this
 * process asks the store for none for YIELD_MS: while every slot is held, the other processes (asking every
 * LEASE_POLL_MS) get theirs in turn instead of one process reusing them all.
 */
const LEASE_KEEP_MAX_MS = 2000;
const YIELD_MS = 2 * LEASE_POLL_MS;

/** The leases one process holds of one credential's slots. */
export class HeldLeases {
  private readonly held = new Set<string>();
  /** Leases held that no request uses, each with the cancel of the timer that gives it back. */
  private readonly spare = new Map<string, () => void>();
  /** When each lease held was taken from the store. */
  private readonly takenAt = new Map<string, number>();
  private closed = false;
  private renewTimer: NodeJS.Timeout | undefined;
  private readonly localWaiters = new Set<() => void>();
  /** Lease ids: unique in the fleet by the prefix, and no random draw per request. */
  private readonly leasePrefix = randomUUID();
  private leaseSeq = 0;
  /** Until when this process leaves the slot it gave back to the others (LEASE_KEEP_MAX_MS). */
  private yieldUntil = 0;
  /**
   * The leases this process allows itself now (lease-allowance.ts). Kept here, not in the store: the store's cap is
   * the most for every process, so one that widened never makes the store refuse another below that cap (they may
   * still wait for leases it holds, as before: a lease held two seconds goes back and is left to the others).
   */
  readonly allowance: LeaseAllowance;
  /** Asks of the store under way (each may bring one more lease). */
  private asking = 0;

  constructor(
    private readonly key: string,
    private readonly range: { start: number; max: number },
    private readonly backend: BudgetBackend,
    private readonly clock: Clock,
    private readonly onError?: (error: unknown) => void,
  ) {
    this.allowance = new LeaseAllowance(range, () => clock.now());
  }

  /** One of the credential's slots, in every process together at most its concurrency. */
  async take(signal: AbortSignal | undefined): Promise<Release> {
    const { backend } = this;
    for (;;) {
      // aborted while the store answered: the wait below would listen for an abort that has happened already
      if (signal?.aborted) throw abortReason(signal);
      const spare = this.spare.keys().next();
      if (!spare.done) {
        const inUse = this.held.size - this.spare.size;
        this.spare.get(spare.value)!();
        this.spare.delete(spare.value);
        if (inUse < this.allowance.concurrency) return this.releaser(spare.value);
        // narrowed since it was kept: it goes back, and this request waits like the others
        void this.giveBack(spare.value);
      }
      const yielding = this.yieldUntil - this.clock.now();
      if (yielding > 0) {
        // a lease this process keeps meanwhile wakes it (the store is not asked)
        await this.waitLocally(yielding, signal);
        continue;
      }
      if (this.held.size + this.asking >= this.allowance.concurrency) {
        // this process holds what it allows itself now: a release here (or a wider allowance) frees one
        this.allowance.waited();
        await this.waitLocally(LEASE_POLL_MS, signal);
        continue;
      }
      const id = `${this.leasePrefix}:${++this.leaseSeq}`;
      this.asking += 1;
      let taken: boolean;
      // A failed ask may have taken the lease all the same (the store's answer was lost): the next ask gives it back
      // first, and so does a request that gives up, or the slot would stay taken until the lease lapses.
      let unanswered = false;
      try {
        taken = await askStore(
          this.clock,
          async () => {
            if (unanswered) await backend.releaseLeases(this.key, [id]);
            unanswered = true;
            const granted = await backend.tryLease(this.key, this.range.max, id, LEASE_TTL_MS);
            unanswered = false;
            return granted;
          },
          signal,
          this.onError,
        );
      } catch (error) {
        if (unanswered) void backend.releaseLeases(this.key, [id]).catch((e: unknown) => this.onError?.(e));
        throw error;
      } finally {
        this.asking -= 1;
      }
      if (taken) {
        this.held.add(id);
        this.allowance.held(this.held.size);
        this.takenAt.set(id, this.clock.now());
        // a request that raced the close uses its lease once; nothing renews it then (it lapses)
        if (!this.closed) this.renewTimer ??= setInterval(() => void this.renew(), LEASE_TTL_MS / 3).unref();
        return this.releaser(id);
      }
      // A release in this process wakes its waiters at once; releases elsewhere are seen on the next poll.
      this.allowance.refused();
      await this.waitLocally(LEASE_POLL_MS, signal);
    }
  }

  /** Waits `ms`, or less when this process releases a lease. */
  private waitLocally(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        cancel();
        this.localWaiters.delete(done);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        cancel();
        this.localWaiters.delete(done);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an abort rejects with the signal's reason
        reject(abortReason(signal!));
      };
      const cancel = this.clock.timer(ms, done);
      this.localWaiters.add(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Gives the lease back once. On a shared store it is first kept for LEASE_LINGER_MS, and a request of this process
   * that asks meanwhile takes it without asking the store: two round trips fewer for a request that follows another.
   * A lease taken LEASE_KEEP_MAX_MS ago or longer goes back at once, and is left to the others for a moment.
   */
  private releaser(id: string): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (this.backend.kind === 'memory' || this.closed) {
        void this.giveBack(id);
        return;
      }
      if (this.clock.now() - (this.takenAt.get(id) ?? 0) >= LEASE_KEEP_MAX_MS) {
        // not pushed further by the next give-back: a process whose every lease is old takes new ones every YIELD_MS
        if (this.clock.now() >= this.yieldUntil) this.yieldUntil = this.clock.now() + YIELD_MS;
        void this.giveBack(id);
        return;
      }
      this.spare.set(
        id,
        this.clock.timer(LEASE_LINGER_MS, () => {
          this.spare.delete(id);
          void this.giveBack(id);
        }),
      );
      this.wakeLocalWaiters();
    };
  }

  private giveBack(id: string): Promise<void> {
    this.held.delete(id);
    this.allowance.held(this.held.size);
    this.takenAt.delete(id);
    return this.backend
      .releaseLeases(this.key, [id])
      .catch((error) => this.onError?.(error))
      .finally(() => this.wakeLocalWaiters());
  }

  private wakeLocalWaiters(): void {
    for (const wake of [...this.localWaiters]) wake();
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    await this.backend.renewLeases(this.key, [...this.held], LEASE_TTL_MS).catch((error) => this.onError?.(error));
  }

  /** Stops renewing (the process is going away; leases in use lapse) and gives back the ones kept. */
  async close(): Promise<void> {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    this.closed = true;
    const kept = [...this.spare];
    this.spare.clear();
    await Promise.all(
      kept.map(([id, cancel]) => {
        cancel();
        return this.giveBack(id);
      }),
    );
  }
}
