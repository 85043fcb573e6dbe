// What every unit of a fanned-out run reads alike, read once per run in each worker process: the run's row (what a
// unit uses of it, its ids, scope and filters, is fixed once it fanned out), the plan (a run's units never change
// after its fan-out), the run's filters parsed, with their fingerprint and the cursors they allow (the cursors change
// only when a run ends), and the interval its last unit plans the next run at. Each unit used to read and parse all
// of them again: at 10,000 custodians the run's and the collection's rows carry megabytes of filters, and a run's
// cost grew as N² (#25). A unit reads what can change during the run on its own: the run's status, the collection
// without its filters (CollectionRepo.getHead), its own row.
import type { UnitSpec } from '../../connectors/types.ts';
import { CollectionRepo } from '../../store/collections.ts';
import { RunRepo, type RunRow } from '../../store/runs.ts';
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
  /** the run as this process first read it; undefined when there is no such run */
  run(): Promise<RunRow | undefined>;
  plan(): Promise<RunPlan>;
  filters(): Promise<RunFilters>;
  rerunMinutes(): Promise<number | undefined>;
}

const RERUN_FRESH_MS = 60_000;

/** A memo per run, for the last `keep` runs this process executed units of. */
export function createRunMemos(deps: RunnerDeps, keep = 4): (runId: string) => RunMemo {
  const memos = new Map<string, RunMemo>();
  return (runId) => {
    let memo = memos.get(runId);
    if (!memo) {
      memo = runMemo(deps, runId);
      memos.set(runId, memo);
      for (const id of memos.keys()) if (memos.size > keep) memos.delete(id);
    }
    return memo;
  };
}

function runMemo(deps: RunnerDeps, runId: string): RunMemo {
  let run: Promise<RunRow | undefined> | undefined;
  let plan: Promise<RunPlan> | undefined;
  let filters: Promise<RunFilters> | undefined;
  let rerun: Promise<number | undefined> | undefined;
  let rerunAt = 0;
  // a failed read is not kept: the next unit reads again
  const kept = <T>(p: Promise<T>, forget: () => void) => {
    p.then((v) => v === undefined && forget(), forget);
    return p;
  };
  const memo: RunMemo = {
    run: () => (run ??= kept(new RunRepo(deps.db).get(runId), () => (run = undefined))),
    plan: () => (plan ??= kept(readPlan(deps, runId), () => (plan = undefined))),
    filters: () => (filters ??= kept(readFilters(deps, memo), () => (filters = undefined))),
    // read again after a minute: the run's last unit plans the next run with what the collection says near its end
    rerunMinutes: () => {
      const now = deps.clock().getTime();
      if (!rerun || now - rerunAt > RERUN_FRESH_MS) {
        rerunAt = now;
        rerun = memo
          .run()
          .then((r) => r && new CollectionRepo(deps.db).getById(r.collection_id))
          .then((c) => rerunMinutesOf(deps, c))
          .catch(() => undefined);
      }
      return rerun;
    },
  };
  return memo;
}

/** The filters the run was planned with, else (a run recorded before runs kept them) the collection's. */
async function readFilters(deps: RunnerDeps, memo: RunMemo): Promise<RunFilters> {
  const run = await memo.run();
  if (!run) throw new Error('the run was deleted');
  const text = run.sync_filters ?? (await new CollectionRepo(deps.db).filtersOf(run.collection_id));
  if (!text) throw new Error('the collection was deleted or its filters removed during the run');
  return runFiltersOf(deps, run.collection_id, text);
}

async function readPlan(deps: RunnerDeps, runId: string): Promise<RunPlan> {
  const units = (await new UnitJobRepo(deps.db).plan(runId)).map((u) => ({
    key: u.unit_key,
    kind: u.kind as UnitSpec['kind'],
    email: u.email,
    ...(u.plan_data ? { data: JSON.parse(u.plan_data) as unknown } : {}),
  }));
  return { units, keys: new Set(units.map((u) => u.key)), first: units[0]?.key };
}
