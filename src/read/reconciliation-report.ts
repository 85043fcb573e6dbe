// The defensibility report of a run: per unit (custodian or channel), what was listed and what became of it.
import type { Database } from '../store/db.ts';
import type { RunRow } from '../store/runs.ts';
import { csvCell } from './manifest.ts';
import { UnitRepo, type RunExceptionRow, type RunUnitRow } from '../store/units.ts';
import { COUNT_FIELDS, countsOf, isBalanced, type Counts } from '../sync/runs/tally.ts';

export interface ReconciliationException {
  source_id: string;
  kind: string;
  name: string;
  outcome: 'failed' | 'not_present' | 'not_reached' | 'provider_limit';
  reason: string;
}

export interface CustodianEntry extends Counts {
  custodian: string;
  /** custodian | channel */
  unit_kind: string;
  /** the custodian's name (a channel's name) and e-mail as collected (fixed contract); `email` is the same e-mail */
  custodian_name: string | null;
  custodian_email: string | null;
  email: string | null;
  exceptions: ReconciliationException[];
}

export interface Reconciliation {
  run_id: string;
  status: string;
  balanced: boolean;
  totals: Counts;
  custodians: CustodianEntry[];
}

/** Counts as reported: a piece seen twice by one run (a resume after a crash) is listed once. */

export function buildReconciliation(
  run: Pick<RunRow, 'id' | 'status'>,
  units: RunUnitRow[],
  exceptions: RunExceptionRow[],
): Reconciliation {
  const byUnit = new Map<string, ReconciliationException[]>();
  for (const e of exceptions) {
    const list = byUnit.get(e.unit_key) ?? [];
    list.push({
      source_id: e.source_id,
      kind: e.kind,
      name: e.name,
      outcome: e.outcome as ReconciliationException['outcome'],
      reason: e.reason,
    });
    byUnit.set(e.unit_key, list);
  }
  const totals: Counts = { listed: 0, collected: 0, unchanged: 0, excluded: 0, not_present: 0, failed: 0 };
  const custodians = units.map((u) => {
    const counts = countsOf(u);
    for (const f of COUNT_FIELDS) totals[f] += counts[f];
    return {
      custodian: u.unit_key,
      unit_kind: u.kind,
      custodian_name: u.name,
      custodian_email: u.email,
      email: u.email,
      ...counts,
      exceptions: byUnit.get(u.unit_key) ?? [],
    };
  });
  return {
    run_id: run.id,
    status: run.status,
    balanced: isBalanced(totals) && custodians.every(isBalanced),
    totals,
    custodians,
  };
}

export async function loadReconciliation(db: Database, run: Pick<RunRow, 'id' | 'status'>): Promise<Reconciliation> {
  const units = new UnitRepo(db);
  return buildReconciliation(run, await units.list(run.id), await units.exceptions(run.id));
}

const csvLine = (cells: Array<string | number | null>) => `${cells.map(csvCell).join(',')}\r\n`;

/**
 * One row per custodian with the counts (`rows=custodians`), or one row per exception (`rows=exceptions`); the
 * custodian's name is the last column (added after the others, which other tooling reads by position).
 */
export function reconciliationCsv(r: Reconciliation, rows: 'custodians' | 'exceptions'): string {
  if (rows === 'exceptions') {
    let out = csvLine([
      'run_id',
      'custodian',
      'email',
      'source_id',
      'kind',
      'name',
      'outcome',
      'reason',
      'custodian_name',
    ]);
    for (const c of r.custodians) {
      for (const e of c.exceptions)
        out += csvLine([
          r.run_id,
          c.custodian,
          c.email,
          e.source_id,
          e.kind,
          e.name,
          e.outcome,
          e.reason,
          c.custodian_name,
        ]);
    }
    return out;
  }
  let out = csvLine(['run_id', 'custodian', 'unit_kind', 'email', ...COUNT_FIELDS, 'exceptions', 'custodian_name']);
  for (const c of r.custodians)
    out += csvLine([
      r.run_id,
      c.custodian,
      c.unit_kind,
      c.email,
      ...COUNT_FIELDS.map((f) => c[f]),
      c.exceptions.length,
      c.custodian_name,
    ]);
  return out;
}
