import { describe, expect, it } from 'vitest';
import { backoffAfter, decideRunOutcome, type RunTally } from '../../src/domain/run-outcome.ts';

/** The README's run outcome table, and the backoff of a failing collection, as one pure rule. */
describe('a run ends as what its units left decides', () => {
  const clean: RunTally = { collected: 3, unchanged: 1, skipped: 0, failed: 0, reconciledFailures: 0, failedUnits: 0 };

  it('succeeded: every selected piece was collected, unchanged or excluded', () => {
    expect(decideRunOutcome(clean)).toEqual({ status: 'succeeded', failed: 0 });
  });

  it('completed_with_errors: some pieces failed, counted from the counters, the reconciliation or failed units', () => {
    expect(decideRunOutcome({ ...clean, failed: 2 })).toEqual({ status: 'completed_with_errors', failed: 2 });
    // a piece no unit reached is in the reconciliation only
    expect(decideRunOutcome({ ...clean, reconciledFailures: 1 })).toEqual({
      status: 'completed_with_errors',
      failed: 1,
    });
    // a unit that failed as a whole
    expect(decideRunOutcome({ ...clean, failed: 1, failedUnits: 3 })).toEqual({
      status: 'completed_with_errors',
      failed: 3,
    });
  });

  it('failed: pieces failed and nothing was kept', () => {
    const none = { ...clean, collected: 0, unchanged: 0 };
    expect(decideRunOutcome({ ...none, failed: 1 })).toEqual({
      status: 'nothing_collected',
      reason: "nothing could be collected: 1 selected piece failed; see the run's reconciliation",
    });
    expect(decideRunOutcome({ ...none, failed: 4 })).toMatchObject({
      reason: expect.stringContaining('4 selected pieces'),
    });
    // a skipped piece was kept: some work was done
    expect(decideRunOutcome({ ...none, skipped: 1, failed: 4 })).toEqual({
      status: 'completed_with_errors',
      failed: 4,
    });
    // nothing selected at all is no failure
    expect(decideRunOutcome({ ...none })).toEqual({ status: 'succeeded', failed: 0 });
  });

  it('error: a unit that needs a person decides before anything else', () => {
    const t = { ...clean, collected: 0, unchanged: 0, failed: 5, needsAction: 're-pair credentials' };
    expect(decideRunOutcome(t)).toEqual({ status: 'needs_action', reason: 're-pair credentials' });
  });

  it('a failing collection is retried after a wait that doubles up to the cap, and given up after maxFailures', () => {
    const policy = { baseMs: 1_000, maxMs: 5_000, maxFailures: 5 };
    expect([1, 2, 3, 4].map((n) => backoffAfter(policy, n))).toEqual([
      { giveUp: false, waitMs: 1_000 },
      { giveUp: false, waitMs: 2_000 },
      { giveUp: false, waitMs: 4_000 },
      { giveUp: false, waitMs: 5_000 },
    ]);
    expect(backoffAfter(policy, 5)).toEqual({ giveUp: true });
    expect(backoffAfter(policy, 9)).toEqual({ giveUp: true });
  });
});
