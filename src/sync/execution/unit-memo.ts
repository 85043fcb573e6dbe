// What every unit of a fanned-out run reads alike, read once per run in each worker process: the plan (a run's units
// never change after its fan-out), the run's filters parsed, with their fingerprint and the cursors they allow (the
// cursors change only when a run ends), and the interval its last unit plans the next run at. Each unit used to read
// and parse all of them again: at 10,000 custodians that is megabytes per unit, and a run's cost grew as N² (#25).
import type { UnitSpec } from '../../connectors/types.ts';
import { CollectionRepo, type CollectionRow } from '../../store/collections.ts';
import type { RunRow } from '../../store/runs.ts';
import { UnitJobRepo } from '../../store/unit-jobs.ts';
import type { RunnerDeps } from '../deps.ts';
import { rerunMinutesOf } from '../schedule/rerun.ts';
import { runFiltersOf, type RunFilters } from './collect-parts.ts';

export interface RunPlan {
  units: UnitSpec[];
  keys: ReadonlySet<string>;
  /** the first unit: it collects again the retry-list pieces of units the run does not have (a channel) */
  first: string | undefined;
}

export interface RunMemo {
  plan(): Promise<RunPlan>;
  filters(collection: CollectionRow): Promise<RunFilters>;
  rerunMinutes(): Promise<number | undefined>;
}

const RERUN_FRESH_MS = 60_000;

/** A memo per run, for the last `keep` runs this process executed units of. */
export function createRunMemos(deps: RunnerDeps, keep = 4): (run: RunRow) => RunMemo {
  const memos = new Map<string, RunMemo>();
  return (run) => {
    let memo = memos.get(run.id);
    if (!memo) {
      memo = runMemo(deps, run);
      memos.set(run.id, memo);
      for (const id of memos.keys()) if (memos.size > keep) memos.delete(id);
    }
    return memo;
  };
}

function runMemo(deps: RunnerDeps, run: RunRow): RunMemo {
  let plan: Promise<RunPlan> | undefined;
  let filters: Promise<RunFilters> | undefined;
  let rerun: Promise<number | undefined> | undefined;
  let rerunAt = 0;
  // a failed read is not kept: the next unit reads again
  const kept = <T>(p: Promise<T>, forget: () => void) => {
    p.catch(forget);
    return p;
  };
  return {
    plan: () => (plan ??= kept(readPlan(deps, run.id), () => (plan = undefined))),
    filters: (collection) => (filters ??= kept(runFiltersOf(deps, run, collection), () => (filters = undefined))),
    // read again after a minute: the run's last unit plans the next run with what the collection says near its end
    rerunMinutes: () => {
      const now = deps.clock().getTime();
      if (!rerun || now - rerunAt > RERUN_FRESH_MS) {
        rerunAt = now;
        rerun = new CollectionRepo(deps.db)
          .getById(run.collection_id)
          .then((c) => rerunMinutesOf(deps, c))
          .catch(() => undefined);
      }
      return rerun;
    },
  };
}

async function readPlan(deps: RunnerDeps, runId: string): Promise<RunPlan> {
  const units = (await new UnitJobRepo(deps.db).list(runId)).map((u) => ({
    key: u.unit_key,
    kind: u.kind as UnitSpec['kind'],
    email: u.email,
    ...(u.plan_data ? { data: JSON.parse(u.plan_data) as unknown } : {}),
  }));
  return { units, keys: new Set(units.map((u) => u.key)), first: units[0]?.key };
}
