// A credential's pause (a 429 with Retry-After, a throttling 503): set by any process, kept in the budget's shared
// store, and waited out by every request of the fleet before it takes a slot (shared-budget.ts).
import { abortable, askStore, sleep, type Clock } from './budget.ts';
import type { BudgetBackend } from './budget-backend.ts';

/**
 * A read of the shared pause started this recently answers later asks too: another process's 429 is seen up to this
 * much later (it is seen a round trip late anyway), and a busy process reads the pause at most 50 times a second
 * instead of twice per request.
 */
const PAUSE_READ_FRESH_MS = 20;

export class CredentialPause {
  /** The latest pause this process set or saw (epoch ms). */
  private local = 0;
  private read: { at: number; value: Promise<number>; pending: boolean } | undefined;

  constructor(
    private readonly key: string,
    private readonly backend: BudgetBackend,
    private readonly clock: Clock,
    private readonly onError?: (error: unknown) => void,
  ) {}

  /** Until when this process knows the credential is paused (epoch ms). */
  get until(): number {
    return this.local;
  }

  set(untilEpochMs: number): void {
    if (untilEpochMs <= this.local) return;
    this.local = untilEpochMs;
    const ttl = Math.ceil((untilEpochMs - this.clock.now()) / 1000) + 60;
    this.backend.pause(this.key, untilEpochMs, Math.max(60, ttl)).catch((error) => this.onError?.(error));
  }

  /** The pause as the shared store holds it, or this process's own when later (see PAUSE_READ_FRESH_MS). */
  async current(signal: AbortSignal | undefined, shared = this.shared()): Promise<number> {
    return Math.max(this.local, await abortable(shared, signal));
  }

  /** Waits out the credential's pause; true when there was one. */
  async wait(signal: AbortSignal | undefined): Promise<boolean> {
    let waited = false;
    for (;;) {
      const until = await this.current(signal);
      const wait = until - this.clock.now();
      if (wait <= 0) return waited;
      this.local = Math.max(this.local, until);
      waited = true;
      await sleep(this.clock, wait, signal);
    }
  }

  /** One read of the shared store, shared by every request asking meanwhile. */
  shared(): Promise<number> {
    const now = this.clock.now();
    // a read still asking (the store failing, asked again) is the answer for everyone meanwhile: one chain of asks
    if (this.read && (this.read.pending || now - this.read.at < PAUSE_READ_FRESH_MS)) return this.read.value;
    // shared by every request asking meanwhile: no one request's abort gives it up (each stops waiting on its own)
    const value = askStore(this.clock, () => this.backend.pausedUntil(this.key), undefined, this.onError);
    const read = { at: now, value, pending: true };
    this.read = read;
    value.then(
      () => {
        read.pending = false;
      },
      () => {
        read.pending = false;
        // a failed read is not the answer to the next ask
        if (this.read === read) this.read = undefined;
      },
    );
    return value;
  }
}
