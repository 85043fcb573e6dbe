import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.ts';
import { up } from '../../src/store/migrations/033_budgets_by_account.ts';
import { testDatabases } from '../support/databases.ts';

for (const database of testDatabases) {
  describe(`migration 033 on ${database.name}: learned rates move from wallets to their provider accounts`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
      await db
        .insertInto('accounts')
        .values({ id: 'acc', name: 'acc', created_at: '2026-01-01T00:00:00.000Z' })
        .execute();
    });
    afterAll(() => handle?.close());

    const wallet = (id: string, account: string | null) =>
      db
        .insertInto('wallets')
        .values({
          id,
          account_id: 'acc',
          name: id,
          credential_type_name: 'oauth',
          config_type: 'conf',
          sealed_grant: null,
          paired_at: null,
          created_at: '2026-01-01T00:00:00.000Z',
          provider_account_id: account,
        })
        .execute();
    /** A row as the older code wrote it: keyed `conf:<wallet id>`. */
    const learned = (walletId: string, rate: number, updatedAt: string) =>
      db
        .insertInto('provider_budgets')
        .values({
          key: `conf:${walletId}`,
          provider: 'conf',
          credential: walletId,
          rate,
          ceiling: null,
          ceiling_at_ms: null,
          cut_at_ms: null,
          updated_at: updatedAt,
        })
        .execute();

    it("keeps one row per account (the latest learned), and a wallet's whose account is unknown as it was", async () => {
      await wallet('wal_a1', 'zoom-acct-A');
      await wallet('wal_a2', 'zoom-acct-A');
      await wallet('wal_b', 'zoom-acct-B');
      await wallet('wal_old', null);
      await learned('wal_a1', 11, '2026-01-01T00:00:00.000Z');
      await learned('wal_a2', 19, '2026-01-02T00:00:00.000Z');
      await learned('wal_b', 57, '2026-01-01T00:00:00.000Z');
      await learned('wal_old', 7, '2026-01-01T00:00:00.000Z');

      await up(db);
      const rows = await db
        .selectFrom('provider_budgets')
        .select(['key', 'provider', 'credential', 'rate'])
        .orderBy('key')
        .execute();
      expect(rows.map((r) => [r.key, r.provider, r.credential, Number(r.rate)])).toEqual([
        ['conf:account:zoom-acct-A', 'conf', 'account:zoom-acct-A', 19],
        ['conf:account:zoom-acct-B', 'conf', 'account:zoom-acct-B', 57],
        ['conf:wal_old', 'conf', 'wal_old', 7],
      ]);
    });
  });
}
