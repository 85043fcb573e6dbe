// Where a unit running in this process waits (issue 25): on its listing, that is on the provider (its writer has
// nothing to write), and the budget its requests spend. The unit worker takes on more units of a run while the run's
// units wait on the provider and their credential has room (unit-worker.ts).
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
  /** The budget of the unit's provider session, once it is open (collect-parts.ts). */
  budget: BudgetRoom | undefined;
}
