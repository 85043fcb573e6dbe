// The lease a process holds on what it executes (a run, or one unit of a fanned-out run): one heartbeat loop that
// renews it and one progress watchdog that stops work making no progress. The claim and every fenced write stay
// compare-and-swaps in the store (store/runs.ts, store/unit-jobs.ts): a lease that lapsed makes them fail.
import { setMaxListeners } from 'node:events';
import type { Logger } from '../../connectors/types.ts';
import type { Database } from '../../store/db.ts';
import { databaseOverloaded } from '../../store/overload.ts';
import { RunRepo, type Counters } from '../../store/runs.ts';
import { UnitJobRepo } from '../../store/unit-jobs.ts';

/** Reasons the signal of leased work is aborted with. */
export class RunStopped extends Error {
  constructor(readonly why: 'cancelled' | 'shutdown' | 'lease_lost' | 'stalled') {
    super(`run stopped: ${why}`);
    this.name = 'RunStopped';
  }
}

/** The run was cancelled or another process took it over: it must not write anything more. */
export class FencedOutError extends Error {
  override name = 'FencedOutError';
}

/**
 * The first write of every flush transaction: stores the counters (and checkpoint, cursors) and proves the writer
 * still owns what it executes. False: cancelled or taken over, and the transaction rolls back.
 */
export interface WriteFence {
  save(
    trx: Database,
    at: string,
    p: { counters: Counters; checkpoint?: string; pendingCursors?: string },
  ): Promise<boolean>;
}

/** The fence of a run collected in place: the run's own lease. */
export function runFence(runId: string, owner: string): WriteFence {
  return { save: (trx, at, p) => new RunRepo(trx).saveProgress(runId, owner, at, p) };
}

/** The fence of a unit job: its unit's lease. */
export function unitFence(runId: string, unitKey: string, owner: string): WriteFence {
  return { save: (trx, at, p) => new UnitJobRepo(trx).saveProgress(runId, unitKey, owner, at, p) };
}

/**
 * A worker's stop (stopAll aborts it, and it stays aborted): work it claims from then on goes back at once, and the
 * work in flight listens to it (as holdLease's `outer`), as many listeners as pieces of work.
 */
export function workerStop(): AbortController {
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  return stop;
}

/** After this many attempts stopped for lack of progress, the work fails (a unit: its custodian reported failed). */
export const MAX_STALLED_ATTEMPTS = 3;

/**
 * The database turned a connection away (too many clients, busy): not the work's fault, and over in a moment. A run or
 * a unit stopped by it is taken again from its last checkpoint, as after a stall, up to as many attempts.
 */
export function triedAgainAfterOverload(err: unknown, attempt: number): boolean {
  return databaseOverloaded(err) && attempt < MAX_STALLED_ATTEMPTS;
}

/**
 * Claims leased work as it was read (`current`): queued, or running under a lease that lapsed or whose owner is a
 * dead process of this host (taken at once). The store's compare-and-swap (`claim`) decides; undefined when the
 * work ended, or another process holds it.
 */
export async function claimLease<T>(
  current: { status: string; lease_owner: string | null } | undefined,
  claim: (now: string, leaseUntil: string, deadOwner?: string) => Promise<T | undefined>,
  t: Pick<LeaseTiming, 'clock' | 'leaseMs'> & { isDeadOwner(owner: string | null): boolean },
): Promise<T | undefined> {
  if (!current || (current.status !== 'queued' && current.status !== 'running')) return undefined;
  const dead = current.status === 'running' && t.isDeadOwner(current.lease_owner) ? current.lease_owner! : undefined;
  const at = t.clock();
  return claim(at.toISOString(), new Date(at.getTime() + t.leaseMs).toISOString(), dead);
}

export interface LeasedRow {
  /** Renews the lease until `until` and records the last progress; false when the caller no longer holds it. */
  renew(now: Date, until: Date, lastProgress: Date): Promise<boolean>;
  /** After a refused renewal: whether the leased work was cancelled (else the lease was lost). */
  wasCancelled(): Promise<boolean>;
  /**
   * Lets another process take the work over at once (it stopped without finishing: shutdown, no progress).
   * `shutdown`: this process is going away while the work was making progress (within the stall limit): the attempt
   * it took is given back, so that restarts do not count towards MAX_STALLED_ATTEMPTS. Work without progress that
   * long keeps its attempt counted, however it stopped.
   */
  release(now: Date, shutdown: boolean): Promise<void>;
}

export interface LeaseTiming {
  clock: () => Date;
  leaseMs: number;
  heartbeatMs: number;
  /**
   * UNIT_STALL_SECONDS in ms: leased work without progress this long is stopped with RunStopped('stalled').
   * Undefined: no watchdog (the lease and a cancel are all that is watched).
   */
  stallMs?: number;
}

export interface HeldLease {
  /** Aborted with a RunStopped when the work must stop (cancel, shutdown, lost lease, no progress). */
  signal: AbortSignal;
  /** Progress (a provider answer, an item, a checkpoint): what keeps the work alive, not the heartbeat. */
  onProgress(): void;
  stop(why: RunStopped['why']): void;
  /**
   * Ends the heartbeat and the watchdog and waits for a renewal in flight; then, with `release`, lets another
   * process take the work over at once (a late renewal can no longer extend the lease after that).
   */
  end(opts?: { release: boolean }): Promise<void>;
}

/**
 * Keeps a claimed lease alive until `end()`: renews it every heartbeatMs and aborts the work's signal when a
 * renewal is refused (cancelled, or taken over after it lapsed), when `outer` aborts (shutdown), or when no
 * progress was reported for stallMs (a provider that stopped answering still lets the heartbeat through).
 */
export function holdLease(
  row: LeasedRow,
  t: LeaseTiming,
  opts: { outer?: AbortSignal; log: Logger; context: Record<string, unknown>; onStall?(): void },
): HeldLease {
  const controller = new AbortController();
  const stop = (why: RunStopped['why']) => {
    if (!controller.signal.aborted) controller.abort(new RunStopped(why));
  };
  const onOuterAbort = () => stop('shutdown');
  opts.outer?.addEventListener('abort', onOuterAbort, { once: true });
  let lastProgress = t.clock().getTime();
  const stallMs = t.stallMs;
  const watchdog =
    stallMs === undefined
      ? undefined
      : setInterval(
          () => {
            if (controller.signal.aborted || t.clock().getTime() - lastProgress < stallMs) return;
            opts.onStall?.();
            opts.log.warn({ ...opts.context, stall_seconds: stallMs / 1000 }, 'no progress; stopped to be retried');
            stop('stalled');
          },
          Math.max(20, Math.min(t.heartbeatMs, stallMs / 4)),
        );
  let inflight: Promise<unknown> = Promise.resolve();
  const heartbeat = setInterval(() => {
    const now = t.clock();
    inflight = row
      .renew(now, new Date(now.getTime() + t.leaseMs), new Date(lastProgress))
      .then(async (ok) => {
        if (ok || controller.signal.aborted) return;
        stop((await row.wasCancelled()) ? 'cancelled' : 'lease_lost');
      })
      .catch((err: unknown) => opts.log.warn({ err, ...opts.context }, 'heartbeat failed'));
  }, t.heartbeatMs);
  return {
    signal: controller.signal,
    onProgress: () => {
      lastProgress = t.clock().getTime();
    },
    stop,
    async end(o) {
      clearInterval(heartbeat);
      if (watchdog) clearInterval(watchdog);
      opts.outer?.removeEventListener('abort', onOuterAbort);
      await inflight;
      if (o?.release) {
        const why = controller.signal.reason instanceof RunStopped ? controller.signal.reason.why : undefined;
        const progressing = stallMs === undefined || t.clock().getTime() - lastProgress < stallMs;
        await row.release(t.clock(), why === 'shutdown' && progressing);
      }
    },
  };
}
