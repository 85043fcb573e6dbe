// Where a unit running in this process waits (issue 25): on its listing, that is on the provider (its writer has
// nothing to write), and the budget its requests spend. The unit worker takes on more units of a run while the run's
// units wait on the provider and their credential has room (unit-worker.ts; the rule is takesOnMore).
import { LevelGauge } from '../../provider/wait-gauge.ts';

/** What the unit worker asks of a unit's budget (shared-budget.ts). */
export interface BudgetRoom {
  /** The credential could send more than it is given now. */
  hasRoom(): boolean;
  /** The requests in flight the credential allows now. */
  readonly concurrency: number;
}

export class UnitLoad {
  /** 1 while the unit's writer waits for its listing's next event (read-ahead.ts). */
  readonly starved = new LevelGauge();
  /** The budget of the unit's provider session, once it is open (unit-job.ts). */
  budget: BudgetRoom | undefined;
}

/** The mean share of a tick the run's units waited on their listing for another to be taken on. */
export const GROW_WHEN_WAITING = 0.5;
/** The event loop's busy share in a tick under which another unit is taken on. */
export const GROW_WHILE_BUSY_BELOW = 0.7;
/** Units taken on beyond the job queue's, at most, in one process (each holds up to 8 MiB read ahead). */
export const MAX_TAKEN_ON = 16;

export interface GrowSignals {
  /** The run's units here, mean share of the last tick their writer waited on the listing. */
  starved: number;
  /** This process's event loop, busy share of the last tick. */
  busy: number;
  /** The credential's budget has room (BudgetRoom.hasRoom). */
  room: boolean;
  /** Units of the credential at work in this process, of any run. */
  units: number;
  /** The credential's concurrency in force. */
  concurrency: number;
  /** Units this process took on and still runs (of any run). */
  takenOn: number;
  /** A unit of the run is stopping (cancel, shutdown, lost lease), or the process is. */
  stopping: boolean;
}

/**
 * Whether one more of a run's queued units is taken on: its units wait on the provider, the process is not what
 * binds (its event loop), the credential has room, and fewer of its units are at work here than it allows requests
 * in flight, within MAX_TAKEN_ON.
 */
export function takesOnMore(s: GrowSignals): boolean {
  return (
    !s.stopping &&
    s.room &&
    s.starved >= GROW_WHEN_WAITING &&
    s.busy < GROW_WHILE_BUSY_BELOW &&
    s.units < s.concurrency &&
    s.takenOn < MAX_TAKEN_ON
  );
}
