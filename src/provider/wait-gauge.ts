// Where a run waits, for the allowance bench (bench/allowance.ts): time-weighted counts of this process's requests
// waiting for their credential's budget and in flight at the provider, and of the unit pipelines whose listing
// waits on a full queue (the writer is behind) or whose writer waits on an empty one (the listing is behind).
// Nothing reads the figures but the bench, so the process's gauges are off unless it turns them on (countWaits).

export class LevelGauge {
  private level = 0;
  private since: number;
  private from: number;
  private zeroMs = 0;
  private areaMs = 0;

  /** `on`: counting (off, every add is ignored and the gauge reads as never raised). */
  constructor(
    private readonly now: () => number = () => performance.now(),
    private on = true,
  ) {
    this.since = this.from = now();
  }

  /** The level in force. */
  get current(): number {
    return this.level;
  }

  add(delta: number): void {
    if (!this.on) return;
    this.advance();
    this.level += delta;
  }

  /** Forgets what was counted so far (the level in force stays). */
  reset(): void {
    this.advance();
    this.from = this.since;
    this.zeroMs = 0;
    this.areaMs = 0;
  }

  /** Starts or stops counting, from level 0 and a reset: switch it while nothing is counted (nothing in flight). */
  count(on: boolean): void {
    this.level = 0;
    this.on = on;
    this.reset();
  }

  /** Since the last reset: the share of the time the level was 0, and its mean. */
  read(): { zeroShare: number; mean: number } {
    this.advance();
    const span = this.since - this.from;
    return span > 0 ? { zeroShare: this.zeroMs / span, mean: this.areaMs / span } : { zeroShare: 1, mean: 0 };
  }

  private advance(): void {
    const t = this.now();
    const dt = t - this.since;
    if (this.level === 0) this.zeroMs += dt;
    this.areaMs += this.level * dt;
    this.since = t;
  }
}

/**
 * The process's gauges, off until countWaits(true) (the bench resets them when a run starts and reads them when it
 * ends).
 */
export const waitGauges = {
  /** Requests waiting in their budget's acquire (a pause, a concurrency slot, a rate slot). */
  budgetWaiting: new LevelGauge(undefined, false),
  /** Requests that passed the budget and have not released it (sent, or reading their body). */
  inFlight: new LevelGauge(undefined, false),
  /** Unit pipelines running (read-ahead.ts): units collecting in this process. */
  pipelines: new LevelGauge(undefined, false),
  /** Unit pipelines whose listing waits because the writer holds the most events it may (read-ahead.ts). */
  listingBlocked: new LevelGauge(undefined, false),
  /** Unit pipelines whose writer waits for the listing's next event. */
  writerStarved: new LevelGauge(undefined, false),
};

/** The allowance bench's switch; off by default. Switch it while the process has no request or unit under way. */
export function countWaits(on: boolean): void {
  for (const gauge of Object.values(waitGauges)) gauge.count(on);
}
