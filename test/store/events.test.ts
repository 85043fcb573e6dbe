import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.ts';
import { EventRepo } from '../../src/store/events.ts';
import { progressData } from '../support/progress.ts';
import { testDatabases } from '../support/databases.ts';

for (const database of testDatabases) {
  describe(`event outbox on ${database.name}`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
    });
    afterAll(() => handle?.close());

    it('keeps events in one increasing order, per collection and across accounts, with their data intact', async () => {
      const events = new EventRepo(db);
      const a1 = await events.append({
        accountId: 'acc_a',
        collectionId: 'col_1',
        runId: 'run_1',
        type: 'run.started',
        data: { run_id: 'run_1', collection_id: 'col_1' },
      });
      const b1 = await events.append({
        accountId: 'acc_b',
        collectionId: 'col_2',
        type: 'hold.released',
        data: { hold_id: 'hold_x' },
      });
      const a2 = await events.append({
        accountId: 'acc_a',
        collectionId: 'col_1',
        runId: 'run_1',
        type: 'run.progress',
        data: progressData({ run_id: 'run_1', custodian: 'u1', listed: 3, collected: 2, bytes: 10, failed: 1 }),
      });
      expect(a1).toBeLessThan(b1);
      expect(b1).toBeLessThan(a2);

      const col1 = await events.listForCollection('col_1', 0);
      expect(col1.map((e) => [e.seq, e.type])).toEqual([
        [a1, 'run.started'],
        [a2, 'run.progress'],
      ]);
      expect(col1[1]).toMatchObject({ accountId: 'acc_a', runId: 'run_1', data: { custodian: 'u1', failed: 1 } });
      expect((await events.listForCollection('col_1', a1)).map((e) => e.seq)).toEqual([a2]);
      expect((await events.headersAfter(a1)).map((e) => e.type)).toEqual(['hold.released', 'run.progress']);
      expect(typeof (await events.headersAfter(0))[0].seq).toBe('number');
    });

    it('appends many events in their order, over several statements when there are more than a batch', async () => {
      const events = new EventRepo(db);
      const custodians = Array.from({ length: 1203 }, (_, i) => `many${String(i).padStart(4, '0')}`);
      await events.appendMany(
        custodians.map((custodian) => ({
          accountId: 'acc_m',
          collectionId: 'col_many',
          runId: 'run_m',
          type: 'run.progress' as const,
          data: progressData({ run_id: 'run_m', custodian, listed: 1, collected: 1, bytes: 1, failed: 0 }),
        })),
      );
      await events.appendMany([]);
      const stored = [
        ...(await events.listForCollection('col_many', 0, 1000)),
        ...(await events.listForCollection('col_many', 0, 5000)).slice(1000),
      ];
      expect(stored.map((e) => (e.data as { custodian: string }).custodian)).toEqual(custodians);
      expect(stored.every((e, i) => i === 0 || e.seq > stored[i - 1].seq)).toBe(true);
    });

    it("gives the dispatcher's feed without data, and one event's data by its seq", async () => {
      const events = new EventRepo(db);
      const from = await events.append({ accountId: 'acc_h', type: 'hold.released', data: { hold_id: 'h0' } });
      const placed = await events.append({
        accountId: 'acc_h',
        type: 'hold.placed',
        data: { hold_id: 'h1', collection_ids: ['col_9'], workspace_id: 'ws_1' },
        at: '2026-01-02T03:04:05.000Z',
      });
      const headers = await events.headersAfter(from);
      expect(headers).toEqual([
        { seq: placed, type: 'hold.placed', accountId: 'acc_h', createdAt: '2026-01-02T03:04:05.000Z' },
      ]);
      expect(await events.dataOf(placed)).toEqual({ hold_id: 'h1', collection_ids: ['col_9'], workspace_id: 'ws_1' });
      expect(await events.dataOf(placed + 1000)).toBeUndefined();
    });
  });
}
