import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRepo } from '../../src/store/audit.ts';
import { AccountRepo } from '../../src/store/accounts.ts';
import { testDatabases } from '../support/databases.ts';
import type { OpenedDatabase } from '../support/app.ts';

describe.each(testDatabases.map((d) => [d.name, d] as const))('the audit chain on %s', (_name, database) => {
  let opened: OpenedDatabase;

  beforeAll(async () => {
    opened = await database.open();
  });
  afterAll(() => opened?.close());

  it('stays one line under concurrent appends to one chain (positions 1..n, each linked to the previous)', async () => {
    const accountId = await new AccountRepo(opened.db).ensureAccount('chain-test');
    const repo = new AuditRepo(opened.db);
    // Separate repositories on the pool: PostgreSQL runs these on several connections at once.
    await Promise.all(
      Array.from({ length: 40 }, (_v, i) =>
        new AuditRepo(opened.db).record({
          accountId,
          clientId: null,
          action: 'test.append',
          targetId: `col_chaintest`,
          outcome: 'success',
          detail: { i },
        }),
      ),
    );
    const chain = await repo.chain('collection:col_chaintest');
    expect(chain.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_v, i) => i + 1));
    expect(chain[0].prev_hash).toBe('0'.repeat(64));
    for (let i = 1; i < chain.length; i++) expect(chain[i].prev_hash).toBe(chain[i - 1].hash);
    expect(await repo.verify(accountId, 'col_chaintest')).toMatchObject({
      valid: true,
      entries: 40,
      head_hash: chain[39].hash,
      broken_at: null,
    });
  });
});
