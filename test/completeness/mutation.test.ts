// The test of the test: the same properties against a server whose connectors get deliberately broken filters
// must fail. Each mutation is one the production filter functions could plausibly suffer (issue 10): one-to-one
// chats always on, content exclusions ignored, folder exclusions under an all-selected user ignored.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../../src/connectors/types.ts';
import { testDatabases } from '../support/databases.ts';
import { Bench } from './bench.ts';
import { confProperty, edriveProperty, type Tally } from './properties.ts';

type Mutation = 'none' | 'one-to-one always on' | 'content exclusions ignored' | 'folder exclusions ignored';
type AnyFilters = Record<string, any>;

function mutate(mutation: Mutation, type: string, filters: AnyFilters): AnyFilters {
  const f = structuredClone(filters);
  if (type === 'conf' && mutation === 'one-to-one always on') {
    const chats = f.chats ?? { all_selected: false, selected: [], excluded: [] };
    if (chats.all_selected) chats.excluded = chats.excluded.filter((e: AnyFilters) => !('one-to-one' in e));
    else chats.selected = [...chats.selected.filter((e: AnyFilters) => !('one-to-one' in e)), { 'one-to-one': true }];
    f.chats = chats;
  }
  if (type === 'conf' && mutation === 'content exclusions ignored') f.content_selections.excluded = [];
  if (type === 'edrive' && mutation === 'folder exclusions ignored')
    for (const user of Object.values(f)) (user as AnyFilters).excluded = [];
  return f;
}

// A fixed seed and a few more runs than CI's default: the search must find the break every time.
const SEARCH = { numRuns: 20, seed: 424242, endOnFailure: true } as const;

describe('the oracle properties catch a broken filter', () => {
  let bench: Bench;
  let mutation: Mutation = 'none';

  beforeAll(async () => {
    const breakFilters = (c: Connector): Connector => ({
      ...c,
      collect: (ctx) => c.collect({ ...ctx, filters: mutate(mutation, c.type, ctx.filters as AnyFilters) }),
    });
    bench = await Bench.start({ database: testDatabases[0], connectors: (_config, real) => real.map(breakFilters) });
  });

  afterAll(async () => {
    await bench?.close();
  });

  it.each([
    ['one-to-one always on', 'conf'],
    ['content exclusions ignored', 'conf'],
    ['folder exclusions ignored', 'edrive'],
  ] as const)('finds a counterexample when %s', async (broken, type) => {
    mutation = broken;
    const tally: Tally = { nonEmpty: 0 };
    const result =
      type === 'conf'
        ? await fc.check(confProperty(bench, tally), SEARCH)
        : await fc.check(edriveProperty(bench, tally), SEARCH);
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/difference\(s\) with the oracle/);
  });
});
