import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { CollectionRepo } from '../src/store/collections.ts';
import { migrate, openDatabase } from '../src/store/db.ts';

/**
 * `npm run bench -- head [custodians…]` (default 0 1000 10000): `CollectionRepo.getHead`, asked once per unit, on
 * SQLite with a collection whose filters name that many custodians, beside the statement it replaced (the filters
 * tested with `is not null`, which reads them through their overflow pages), in µs a call. Both on a database
 * migrated to its current layout (the filters its last column, migration 035).
 */
export async function benchCollectionHead(sizes: number[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const n of sizes) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-head-'));
    const db = openDatabase({ sqlitePath: path.join(dir, 'custody.db') });
    try {
      await migrate(db);
      await sql`pragma foreign_keys = off`.execute(db);
      const filters = Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
          `user-${i}@example.com`,
          { all_selected: true, selected: [], excluded: [] },
        ]),
      );
      const now = new Date().toISOString();
      await db
        .insertInto('collections')
        .values({
          id: 'col_bench',
          account_id: 'acc',
          workspace_id: 'wsp',
          wallet_id: 'wal',
          name: 'bench',
          type: 'edrive',
          sync_status: 'synced',
          type_sync: 'one',
          sync_filters: n > 0 ? JSON.stringify(filters) : null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      const repo = new CollectionRepo(db);
      // the statement before: the same columns, the filters tested with `is not null`
      const before = () =>
        db
          .selectFrom('collections')
          .select(['id', 'account_id', 'workspace_id', 'wallet_id', 'name', 'type', 'sync_status', 'status_reason'])
          .select(['type_sync', 'filters_updated_at', 'next_sync_at', 'rerun_requested_at', 'deleting_at'])
          .select(['created_at', 'updated_at', sql<boolean>`sync_filters is not null`.as('has_filters')])
          .where('id', '=', 'col_bench')
          .where('deleting_at', 'is', null)
          .executeTakeFirst();
      const time = async (ask: () => Promise<unknown>) => {
        for (let i = 0; i < 200; i++) await ask();
        const t = performance.now();
        for (let i = 0; i < 2000; i++) await ask();
        return (((performance.now() - t) / 2000) * 1000).toFixed(1);
      };
      const was = await time(before);
      const head = await time(() => repo.getHead('col_bench'));
      out[`head ${n} custodians (${(JSON.stringify(filters).length / 1e6).toFixed(2)} MB of filters)`] =
        `getHead ${head} µs a call; before (the filters tested with is not null) ${was} µs`;
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}
