// Property: for random seeded tenants and random selections, a real sync through the public API collects
// exactly the oracle's set (test/completeness/oracle.ts, written from the spec), for both connectors.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { RUNS, SEED } from './arbitraries.ts';
import { Bench } from './bench.ts';
import { confProperty, type Tally } from './properties.ts';

describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'conf filter semantics against the spec oracle on %s',
  (_name, database) => {
    let bench: Bench;

    beforeAll(async () => {
      bench = await Bench.start({ database });
    });

    afterAll(async () => {
      await bench?.close();
    });

    it('conf: the collected set is the oracle set for random owners, content kinds, one-to-one and channels', async () => {
      const tally: Tally = { nonEmpty: 0 };
      await fc.assert(confProperty(bench, tally), { numRuns: RUNS, seed: SEED });
      expect(tally.nonEmpty).toBeGreaterThan(0);
    });
  },
);
