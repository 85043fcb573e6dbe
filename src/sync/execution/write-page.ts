// One flush of an item writer: everything it buffered, in one transaction fenced on what it executes.
import { setTimeout } from 'node:timers/promises';
import type { Database } from '../../store/db.ts';
import { HoldRepo } from '../../store/holds.ts';
import { transactionConflict } from '../../store/overload.ts';
import type { Counters } from '../../store/runs.ts';
import { RunErrorRepo, type RunErrorRow } from '../../store/run-errors.ts';
import { applyOps, type ApplyResult, type ApplyScope, type ItemOp } from './apply.ts';
import { FencedOutError, type WriteFence } from './lease.ts';
import type { UnitLedger } from './ledger.ts';

export interface PageWrite {
  fence: WriteFence;
  at: string;
  scope: Omit<ApplyScope, 'held' | 'at'>;
  /** a hold known before the transaction (an injected check): no need to read legal_holds */
  heldOverride: boolean;
  counters: Counters;
  checkpoint?: string;
  pendingCursors?: string;
  ops: ItemOp[];
  errors: Omit<RunErrorRow, 'id'>[];
  ledger: UnitLedger;
  final?: boolean;
  within?: (trx: Database) => Promise<void>;
}

/** How many times a page's transaction is run when PostgreSQL keeps aborting it to break a deadlock. */
export const PAGE_ATTEMPTS = 5;

/**
 * Units of a run write their pages at the same time, and content they share (blob_refs rows) or rows one unit
 * releases while another takes them can be locked in opposite orders: PostgreSQL then aborts one transaction
 * (40P01). Nothing of it was written, so the page is written again, its ledger restored, once the other has ended.
 */
export async function writePage(db: Database, w: PageWrite): Promise<ApplyResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      const applied = await writeOnce(db, w);
      w.ledger.committed();
      return applied;
    } catch (err) {
      w.ledger.rolledBack();
      if (!transactionConflict(err) || attempt >= PAGE_ATTEMPTS) throw err;
      // apart, so that the two transactions do not meet again in the same step
      await setTimeout(Math.floor(Math.random() * 20 * attempt));
    }
  }
}

function writeOnce(db: Database, w: PageWrite): Promise<ApplyResult> {
  return db.transaction().execute(async (trx) => {
    const owned = await w.fence.save(trx, w.at, {
      counters: w.counters,
      checkpoint: w.checkpoint,
      pendingCursors: w.pendingCursors,
    });
    if (!owned) throw new FencedOutError('the run was cancelled or taken over by another process');
    let held: Promise<boolean> | undefined;
    const scope: ApplyScope = {
      ...w.scope,
      // Decided here, after the run row's lock, so that a hold placed concurrently is either seen or waits.
      held: () =>
        (held ??= w.heldOverride ? Promise.resolve(true) : new HoldRepo(trx).isHeldLocked(w.scope.collectionId)),
      at: w.at,
    };
    const applied = await applyOps(trx, scope, w.ops);
    await new RunErrorRepo(trx).add(w.errors);
    await w.ledger.write(trx, w.final);
    await w.within?.(trx);
    return applied;
  });
}
