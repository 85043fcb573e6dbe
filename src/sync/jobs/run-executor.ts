/**
 * Where runs execute. The embedded default runs them in this process; a PostgreSQL deployment can hand run
 * ids to a job engine (graphile-worker) whose task calls `engine.runOnce(runId)` in any worker process:
 * runOnce claims the run itself (compare-and-swap on its lease), so a duplicate delivery is harmless.
 */
export interface RunExecutor {
  start(): void;
  /** A run was queued: look now instead of at the next poll. */
  kick(): void;
  /** Stops taking runs and waits for the ones in flight to stop (the engine interrupts them). */
  stop(): Promise<void>;
}

export interface RunSource {
  /** Ids of runs this process may claim now (queued, lease expired, owner dead). */
  claimableRunIds(limit: number): Promise<string[]>;
  runOnce(runId: string): Promise<unknown>;
}

export interface InProcessRunExecutorOptions {
  source: RunSource;
  concurrency: number;
  /** How often to look for claimable runs when nothing kicks. Default 1000 ms. */
  pollMs?: number;
  log: { error(obj: object, msg?: string): void };
}

export function createInProcessRunExecutor(opts: InProcessRunExecutorOptions): RunExecutor {
  const pollMs = opts.pollMs ?? 1000;
  const inFlight = new Map<string, Promise<void>>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let kicked = false;

  const kick = () => {
    kicked = true;
    wake?.();
  };

  const fill = async () => {
    const free = opts.concurrency - inFlight.size;
    if (free <= 0) return;
    const ids = await opts.source.claimableRunIds(free + inFlight.size);
    for (const id of ids) {
      if (inFlight.size >= opts.concurrency) break;
      if (inFlight.has(id)) continue;
      const p = opts.source
        .runOnce(id)
        .then(() => undefined)
        .catch((err: unknown) => opts.log.error({ err, run_id: id }, 'run crashed'))
        .finally(() => {
          inFlight.delete(id);
          kick();
        });
      inFlight.set(id, p);
    }
  };

  const run = async () => {
    while (running) {
      kicked = false;
      try {
        await fill();
      } catch (err) {
        opts.log.error({ err }, 'executor could not look for runs');
      }
      if (!running) break;
      if (kicked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  };

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    kick,
    async stop() {
      running = false;
      wake?.();
      await loop;
      await Promise.all(inFlight.values());
    },
  };
}
