import { expect } from 'vitest';
import type { Database } from '../../src/store/db.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { UnitJobRepo } from '../../src/store/unit-jobs.ts';

/** A running run of `collectionId`, claimed by a planner at `at` and fanned out into `keys` (each unit queued). */
export async function fannedOutRun(
  db: Database,
  collectionId: string,
  keys: string[],
  at = '2026-01-01T00:00:00.000Z',
): Promise<string> {
  const runs = new RunRepo(db);
  const { run } = await runs.insertQueued({ collectionId, accountId: 'acc', trigger: 'start', at });
  expect(await runs.claim(run.id, 'planner', at, new Date(Date.parse(at) + 60_000).toISOString())).toBeDefined();
  const units = keys.map((key) => ({ key, kind: 'custodian', email: null }));
  expect(await new UnitJobRepo(db).fanOut(run.id, 'planner', collectionId, units, at)).toBe(true);
  return run.id;
}
