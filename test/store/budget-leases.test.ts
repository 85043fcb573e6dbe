import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.ts';
import { ProviderBudgetRepo } from '../../src/store/provider-budgets.ts';
import { testDatabases } from '../support/databases.ts';

const postgres = testDatabases.find((d) => d.name === 'postgres');
const T = 1_000_000; // the clock the tests pass in (epoch ms)

/**
 * The PostgreSQL concurrency leases of a provider budget: `cap` slots, taken by one statement each without a lock
 * that serialises the takers. However many take at once, no more than `cap` hold a lease of one key.
 */
describe.runIf(postgres)('provider budget leases on PostgreSQL', () => {
  let handle: Awaited<ReturnType<NonNullable<typeof postgres>['open']>>;
  let db: Database;
  let repo: ProviderBudgetRepo;

  beforeAll(async () => {
    handle = await postgres!.open();
    db = handle.db;
    repo = new ProviderBudgetRepo(db);
  });
  afterAll(() => handle?.close());

  it('admits exactly the cap of many takers at once, and one more per lease released', async () => {
    for (let round = 0; round < 5; round++) {
      const key = `zoom:race-${round}`;
      const ids = Array.from({ length: 30 }, (_, i) => `lease-${round}-${i}`);
      const won = await Promise.all(ids.map((id) => repo.tryLease(key, 4, id, T + 60_000, T)));
      const holders = ids.filter((_, i) => won[i]);
      expect(holders).toHaveLength(4);
      expect(await repo.tryLease(key, 4, 'late', T + 60_000, T)).toBe(false);
      // one statement gives back one or several
      const freed = (round % 3) + 1;
      await repo.releaseLeases(key, holders.slice(0, freed));
      const again = await Promise.all(ids.map((id) => repo.tryLease(key, 4, `${id}-again`, T + 60_000, T)));
      expect(again.filter(Boolean)).toHaveLength(freed);
    }
  });

  it('gives an expired slot to a new taker, and the old holder then releases nothing of it', async () => {
    const key = 'zoom:expiry';
    expect(await repo.tryLease(key, 1, 'old', T + 10, T)).toBe(true);
    expect(await repo.tryLease(key, 1, 'early', T + 60_000, T + 5)).toBe(false);
    expect(await repo.tryLease(key, 1, 'new', T + 60_000, T + 20)).toBe(true);
    await repo.releaseLeases(key, ['old']);
    await repo.renewLeases(key, ['old'], T + 120_000);
    expect(await repo.tryLease(key, 1, 'third', T + 60_000, T + 30)).toBe(false);
    await repo.releaseLeases(key, ['new']);
    expect(await repo.tryLease(key, 1, 'third', T + 60_000, T + 30)).toBe(true);
  });

  it('counts a live lease taken before slots (a random id) against the cap', async () => {
    const key = 'zoom:legacy';
    await db
      .insertInto('provider_budget_leases')
      .values({ key, lease_id: 'c0ffee-uuid', holder: null, expires_at_ms: T + 60_000 })
      .execute();
    expect(await repo.tryLease(key, 1, 'a', T + 60_000, T)).toBe(false);
    await db.deleteFrom('provider_budget_leases').where('lease_id', '=', 'c0ffee-uuid').execute();
    expect(await repo.tryLease(key, 1, 'a', T + 60_000, T)).toBe(true);
  });
});
