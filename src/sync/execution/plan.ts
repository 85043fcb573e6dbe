// The planner: the `custody.run` job plans every run. A connector that splits runs (Connector.units) gets one unit
// job per unit; a connector without a planner has a single unit, the run itself, collected in place (runner.ts).
import type { CollectContext, Connector } from '../../connectors/types.ts';
import { abortable } from '../../provider/budget.ts';
import type { RunRow } from '../../store/runs.ts';
import { UnitJobRepo } from '../../store/unit-jobs.ts';
import type { UnitLedger } from './ledger.ts';
import type { ItemWriter } from './item-writer.ts';
import { FencedOutError } from './lease.ts';

export interface PlanInput {
  connector: Connector;
  ctx: CollectContext;
  /** the run's session, fenced on the run's lease */
  session: ItemWriter;
  ledger: UnitLedger;
  run: RunRow;
  owner: string;
  collectionId: string;
  now(): string;
}

/**
 * Resolves the run's units and, in one transaction fenced on the run's lease, records the selection problems
 * found (gone users...), the units as `pending` in the reconciliation and one unit job each, and hands the run to
 * its units. A planner that dies before that commit leaves nothing: the run is claimed again and planned again.
 * `empty`: nothing to fan out (the run ends with nothing collected). `in_place`: the connector has no planner; its
 * single unit is the run. A planner that stops answering is given up when the run's signal aborts (its lease's
 * progress watchdog), even if it ignores the signal.
 */
export async function planUnits(p: PlanInput): Promise<'fanned_out' | 'empty' | 'in_place'> {
  if (!p.connector.units) return 'in_place';
  const { units, events } = await abortable(p.connector.units.plan(p.ctx), p.ctx.signal);
  for (const ev of events) {
    if (p.ctx.signal.aborted) throw p.ctx.signal.reason;
    // Unit statuses go to the ledger without the flush a session does on them: all of the plan commits at once.
    if (ev.type === 'unit') p.ledger.announce(ev.unit, ev.status);
    else await p.session.handle(ev);
  }
  if (units.length === 0) return 'empty';
  for (const u of units) p.ledger.announce(u, 'pending');
  const specs = units.map((u) => ({ key: u.key, kind: u.kind, email: u.email ?? null, data: u.data }));
  await p.session.flush({
    final: true,
    within: async (trx) => {
      if (!(await new UnitJobRepo(trx).fanOut(p.run.id, p.owner, p.collectionId, specs, p.now())))
        throw new FencedOutError('the run is no longer ours');
    },
  });
  p.ctx.log.info({ units: units.length }, 'run fanned out into units');
  return 'fanned_out';
}
