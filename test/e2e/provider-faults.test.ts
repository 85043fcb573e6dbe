import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { PROVIDER_FAULT_RATES, startFaultedSync, type FaultedSync } from '../support/faulted-sync.ts';

/**
 * Issue 19's reproduction: a `conf` and an `edrive` run in the same embedded-default process against providers
 * that fail at the rates (seeded) both end, and what they collected is the simulators' data.
 */
describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'runs always end under provider faults on %s',
  (_name, database) => {
    let s: FaultedSync;

    beforeAll(async () => {
      s = await startFaultedSync({ database, seed: 19 });
    }, 60_000);
    afterAll(async () => s?.close(), 60_000);

    it('finishes a conf and an edrive run under 500/503, 429, resets and cut bodies, and collects everything', async () => {
      s.faults({ seed: 19, ...PROVIDER_FAULT_RATES });
      const outcome = await s.syncBoth(120_000);
      expect(s.zoom.faults.dice!.rolled + s.ms.faults.dice!.rolled).toBeGreaterThan(100);
      const injected =
        Object.values(s.zoom.faults.dice!.counts).reduce((a, b) => a + b, 0) +
        Object.values(s.ms.faults.dice!.counts).reduce((a, b) => a + b, 0);
      expect(injected).toBeGreaterThan(5);
      expect([outcome.conf.sync_status, outcome.edrive.sync_status]).toEqual(['synced', 'synced']);
      // Whatever a faulted run could not get, the next (fault-free) run collects.
      s.faults(null);
      await s.syncBoth(30_000);
      expect(await s.check()).toEqual({ missing: [], corrupt: [] });
    }, 200_000);
  },
);
