import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EventRepo } from '../../../src/store/events.ts';
import type { Database } from '../../../src/store/db.ts';
import { UnitLedger } from '../../../src/sync/execution/ledger.ts';
import { writePage, type PageWrite } from '../../../src/sync/execution/write-page.ts';
import { testDatabases } from '../../support/databases.ts';
import { fixtureCollection, fixtureItem, insertItems } from '../../store/items-fixture.ts';

const X = 'a'.repeat(64);
const Y = 'b'.repeat(64);
const postgres = testDatabases.find((d) => d.name === 'postgres');

/**
 * Two units of a run write their pages at once. Unit A's file changes from content X to Y while unit B's changes
 * from Y to X (a swap across two custodians' drives): each page releases its old content's reference, then takes
 * the new one, so A holds X's blob_refs row and waits for Y's while B holds Y's and waits for X's. PostgreSQL
 * aborts one of them (deadlock_detected); the page must be written anyway, with its ledger, and the counts exact.
 * PostgreSQL only: SQLite has one writer, and the test is not defined there (a skipped test would show).
 */
if (postgres)
  describe('two pages locking shared contents in opposite orders on postgres', () => {
    let handle: Awaited<ReturnType<typeof postgres.open>>;
    let db: Database;
    let ids: { accountId: string; collectionId: string };

    beforeAll(async () => {
      handle = await postgres.open();
      db = handle.db;
      ids = await fixtureCollection(db);
      const stored = { content_state: 'stored', holds_ref: 1, size: 3 };
      await insertItems(db, [
        fixtureItem(ids, 1, { ...stored, sha256: X, custodian: 'alice' }),
        fixtureItem(ids, 2, { ...stored, sha256: Y, custodian: 'bob' }),
      ]);
      const at = '2026-01-01T00:00:00.000Z';
      await db
        .insertInto('blob_refs')
        .values([
          { sha256: X, size: 3, refs: 1, updated_at: at },
          { sha256: Y, size: 3, refs: 1, updated_at: at },
        ])
        .execute();
    });
    afterAll(() => handle?.close());

    function page(unit: string, n: number, sha256: string): PageWrite {
      const ledger = new UnitLedger({ ...ids, runId: 'run_1' }, () => new Date(), [], new Set());
      ledger.exception(unit, {
        sourceId: `src-${n}`,
        kind: 'file',
        name: `note of ${unit}`,
        outcome: 'failed',
        reason: 'r',
      });
      return {
        fence: { save: async () => true },
        at: new Date().toISOString(),
        scope: { ...ids, runId: 'run_1', listingRunId: 'run_1', typeSync: 'auto' },
        heldOverride: false,
        counters: { listed: 0, collected: 0, skipped: 0, unchanged: 0, failed: 0, bytes: 0, error_count: 0 },
        ops: [
          {
            type: 'upsert',
            input: {
              kind: 'file',
              sourceId: `src-${n}`,
              name: `file ${n}`,
              path: `/file ${n}`,
              custodian: unit,
              metadata: {},
            },
            content: { sha256, md5: 'm', size: 3, providerHash: null, verified: null },
          },
        ],
        errors: [],
        ledger,
      };
    }

    it('writes both pages, each once, with exact reference counts', async () => {
      // A third transaction holds both rows until both pages wait on one each, so that they wake together.
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let holderPid!: number;
      let locked!: () => void;
      const holding = new Promise<void>((r) => (locked = r));
      const holder = db.transaction().execute(async (trx) => {
        await trx.selectFrom('blob_refs').select('sha256').where('sha256', 'in', [X, Y]).forUpdate().execute();
        holderPid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0].pid;
        locked();
        await gate;
      });
      await holding;
      const writes = Promise.allSettled([writePage(db, page('alice', 1, Y)), writePage(db, page('bob', 2, X))]);
      for (let waiting = 0; waiting < 2;) {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where ${holderPid} = any(pg_blocking_pids(pid))`.execute(db);
        waiting = rows[0].n;
      }
      release();
      await holder;

      const outcomes = await writes;
      expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'written'))).toEqual([
        'written',
        'written',
      ]);
      const items = await db.selectFrom('items').select(['source_id', 'sha256']).orderBy('source_id').execute();
      expect(items).toEqual([
        { source_id: 'src-1', sha256: Y },
        { source_id: 'src-2', sha256: X },
      ]);
      const refs = await db.selectFrom('blob_refs').select(['sha256', 'refs']).orderBy('sha256').execute();
      expect(refs.map((r) => [r.sha256, Number(r.refs)])).toEqual([
        [X, 1],
        [Y, 1],
      ]);
      // each page's ledger written once, the page that was aborted included
      const notes = await db.selectFrom('run_exceptions').select('name').orderBy('name').execute();
      expect(notes.map((r) => r.name)).toEqual(['note of alice', 'note of bob']);
    });
  });

/** What a page's ledger wrote in a transaction that did not commit is written by the page's next attempt. */
describe.each(testDatabases)('a page ledger whose transaction rolled back on $name', ({ open }) => {
  let handle: Awaited<ReturnType<typeof open>>;
  let db: Database;
  beforeAll(async () => {
    handle = await open();
    db = handle.db;
  });
  afterAll(() => handle?.close());

  it('writes its counts and exceptions on the next attempt, once', async () => {
    const scope = { runId: 'run_2', collectionId: 'col_2', accountId: 'acc_2' };
    const ledger = new UnitLedger(scope, () => new Date(), [], new Set());
    ledger.count('alice', 'listed', 3);
    ledger.exception('alice', { sourceId: 's1', kind: 'file', name: 'one', outcome: 'failed', reason: 'r' });
    const aborted = db.transaction().execute(async (trx) => {
      await ledger.write(trx, true);
      throw new Error('aborted after the ledger wrote');
    });
    await expect(aborted).rejects.toThrow('aborted after the ledger wrote');
    ledger.rolledBack();
    // buffered meanwhile: comes after what the aborted attempt had taken
    ledger.exception('alice', { sourceId: 's2', kind: 'file', name: 'two', outcome: 'failed', reason: 'r' });
    await db.transaction().execute((trx) => ledger.write(trx, true));
    ledger.committed();
    await db.transaction().execute((trx) => ledger.write(trx, true));
    ledger.committed();

    const notes = await db.selectFrom('run_exceptions').select('name').where('run_id', '=', 'run_2').execute();
    expect(notes.map((r) => r.name).sort()).toEqual(['one', 'two']);
    const units = await db
      .selectFrom('run_units')
      .select(['unit_key', 'listed'])
      .where('run_id', '=', 'run_2')
      .execute();
    expect(units.map((u) => [u.unit_key, Number(u.listed)])).toEqual([['alice', 3]]);
    const progress = await db.selectFrom('events').select('type').where('type', '=', 'run.progress').execute();
    expect(progress).toHaveLength(1);
  });

  it('gives back each entry once when its write failed midway (a conflict inside the ledger)', async () => {
    const scope = { runId: 'run_3', collectionId: 'col_3', accountId: 'acc_3' };
    const ledger = new UnitLedger(scope, () => new Date(), [], new Set());
    ledger.count('bob', 'listed', 1);
    ledger.exception('bob', { sourceId: 's3', kind: 'file', name: 'three', outcome: 'failed', reason: 'r' });
    ledger.failure({ unitKey: 'bob', kind: 'file', sourceId: 'f1', name: 'f1', piece: { id: 1 }, reason: 'flaky' });
    // the exceptions and the failure are written; the progress event after them fails
    const append = vi
      .spyOn(EventRepo.prototype, 'appendMany')
      .mockRejectedValueOnce(new Error('aborted in the ledger'));
    try {
      const aborted = db.transaction().execute((trx) => ledger.write(trx, true));
      await expect(aborted).rejects.toThrow('aborted in the ledger');
    } finally {
      append.mockRestore();
    }
    ledger.rolledBack();
    await db.transaction().execute((trx) => ledger.write(trx, true));
    ledger.committed();

    const notes = await db.selectFrom('run_exceptions').select('name').where('run_id', '=', 'run_3').execute();
    expect(notes.map((r) => r.name)).toEqual(['three']);
    const retry = await db.selectFrom('unit_retries').select('attempts').where('collection_id', '=', 'col_3').execute();
    expect(retry.map((r) => Number(r.attempts))).toEqual([1]);
  });
});
