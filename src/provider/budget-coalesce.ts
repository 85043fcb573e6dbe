// A shared budget store (Redis, PostgreSQL) is asked for every provider request: a count of the request's slot and
// the release of its lease, each a round trip. Requests of one process asking at the same time share those round
// trips here: counts of one key are summed into one increment, and releases of one key go in one statement. Nothing
// waits on a timer: a call made while another of its kind is under way goes with the next one (issue 25: on
// PostgreSQL the budget was four of five statements of a sync of small files).
import { batchedCalls } from '../store/batched-calls.ts';
import type { BudgetBackend } from './budget-backend.ts';

/** The same store, with concurrent calls of this process sharing round trips. */
export function coalesced(backend: BudgetBackend): BudgetBackend {
  // Each count gets the total as if the batch's increments had been made one after the other, in call order.
  const count = batchedCalls<{ cost: number; ttlSeconds: number }, number>(async (key, calls) => {
    const sum = calls.reduce((s, c) => s + c.cost, 0);
    let after = await backend.count(key, sum, calls[0].ttlSeconds);
    const totals: number[] = [];
    for (let i = calls.length - 1; i >= 0; i--) {
      totals[i] = after;
      after -= calls[i].cost;
    }
    return totals;
  });
  const release = batchedCalls<string, void>(async (key, ids) => {
    await backend.releaseLeases(key, ids);
    return ids.map(() => undefined);
  });
  return {
    ...backend,
    count: (key, cost, ttlSeconds) => count(key, { cost, ttlSeconds }),
    async releaseLeases(key, ids) {
      await Promise.all(ids.map((id) => release(key, id)));
    },
  };
}
