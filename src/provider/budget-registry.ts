// The provider budgets of one process: one SharedBudget per credential key, made on first use and shared by every
// session of that credential in this process (shared-budget.ts shares each across the fleet).
import type { BudgetConfig, Clock } from './budget.ts';
import { createBudgetBackend } from './budget-backend.ts';
import { SharedBudget, type SharedBudgetOptions } from './shared-budget.ts';

export interface LearnedRateView {
  provider: string;
  credential: string;
  rate: number;
}

/** The budgets of one process, one per credential key (`<provider>:<credential>`). */
export class ProviderBudgets {
  private readonly budgets = new Map<string, SharedBudget>();

  constructor(private readonly options: SharedBudgetOptions) {}

  /** The config is used when the key is first seen; later calls get the existing budget unchanged. */
  get(key: string, config: BudgetConfig): SharedBudget {
    let budget = this.budgets.get(key);
    if (!budget) {
      const at = key.indexOf(':');
      const ids =
        at === -1 ? { provider: key, credential: '' } : { provider: key.slice(0, at), credential: key.slice(at + 1) };
      budget = new SharedBudget(key, ids, config, this.options);
      this.budgets.set(key, budget);
    }
    return budget;
  }

  /** The rate in force per credential this process has used (for the custody_provider_budget_rate gauge). */
  learnedRates(): LearnedRateView[] {
    return [...this.budgets.values()].map((b) => ({ ...b.ids, rate: b.rate }));
  }

  /** The requests in flight each credential this process has used allows itself now (shared-budget.ts). */
  concurrencies(): Array<{ provider: string; credential: string; concurrency: number }> {
    return [...this.budgets.values()].map((b) => ({ ...b.ids, concurrency: b.concurrency }));
  }

  async close(): Promise<void> {
    // the leases each keeps go back before the connections to their store close
    await Promise.all([...this.budgets.values()].map((budget) => budget.close()));
    await this.options.backend.close();
  }
}

/** A budget of this process alone with a fixed rate (e.g. a login host that is not the provider's metered API). */
export function localBudget(config: BudgetConfig, clock?: Clock): SharedBudget {
  return new SharedBudget('local', { provider: 'local', credential: '' }, config, {
    backend: createBudgetBackend({ kind: 'memory' }),
    clock,
    learn: false,
  });
}
