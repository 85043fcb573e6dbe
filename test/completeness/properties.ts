// The two properties, shared by the tests that expect them to hold and the test of the test that expects a
// broken filter to be caught.
import fc from 'fast-check';
import { confFilters, confPick, edriveFilters, edrivePick, msShape, zoomShape } from './arbitraries.ts';
import type { Bench } from './bench.ts';
import { assertSameSet } from './check.ts';
import { confOracle, edriveOracle, unreachableChannels } from './oracle.ts';
import type { Json } from '../support/app.ts';

/** How many runs compared a non-empty expected set (a property over empty selections only proves nothing). */
export interface Tally {
  nonEmpty: number;
}

export function confProperty(bench: Bench, tally: Tally) {
  return fc.asyncProperty(confPick, async (p) => {
    const sandbox = await bench.zoomTenant(zoomShape(p));
    const filters = confFilters(sandbox.tenant, p);
    const want = confOracle(sandbox.tenant, filters);
    const { items, collectionId, run } = await bench.sync('conf', filters);
    assertSameSet(want, items, filters);
    // a channel named in the filters that no selected owner can reach is a failed unit of the run, each of them
    const reconciliation = await bench.get(`/v1/collections/${collectionId}/runs/${run.run_id}/reconciliation`);
    const failedChannels = (reconciliation.custodians as Json[])
      .filter((u) => u.unit_kind === 'channel' && u.failed > 0)
      .map((u) => u.custodian)
      .sort();
    const unreachable = unreachableChannels(sandbox.tenant, filters);
    if (JSON.stringify(failedChannels) !== JSON.stringify(unreachable)) {
      throw new Error(
        `channels reported unreachable ${JSON.stringify(failedChannels)}, oracle ${JSON.stringify(unreachable)}; filters: ${JSON.stringify(filters)}`,
      );
    }
    if (unreachable.length > 0 && run.status !== 'completed_with_errors')
      throw new Error(`run ${run.status} with unreachable channels ${unreachable.join(', ')}`);
    if (want.size > 0) tally.nonEmpty += 1;
  });
}

export function edriveProperty(bench: Bench, tally: Tally) {
  return fc.asyncProperty(edrivePick, async (p) => {
    const sandbox = await bench.msTenant(msShape(p));
    const filters = edriveFilters(sandbox, p);
    const driveOf = (id: string) =>
      sandbox.tenant.users.find((u) => u.id === id)?.drive ? sandbox.listItems(id) : null;
    const want = edriveOracle(driveOf, filters);
    const { items } = await bench.sync('edrive', filters);
    assertSameSet(want, items, filters);
    if (want.size > 0) tally.nonEmpty += 1;
  });
}
