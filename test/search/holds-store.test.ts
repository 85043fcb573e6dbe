import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.ts';
import { HoldRepo, legalHoldGuard } from '../../src/store/holds.ts';
import { testDatabases } from '../support/databases.ts';
import { seedAccount, seedCollection, seedWorkspace } from './fixtures.ts';

for (const database of testDatabases) {
  describe(`legal hold repository on ${database.name}`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    let holds: HoldRepo;
    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
      holds = new HoldRepo(db);
    });
    afterAll(() => handle?.close());

    it('isHeld follows direct and workspace holds, and their release', async () => {
      const acc = await seedAccount(db);
      const ws = await seedWorkspace(db, acc);
      const a = await seedCollection(db, acc, ws);
      const b = await seedCollection(db, acc, ws);
      const elsewhere = await seedCollection(db, acc, await seedWorkspace(db, acc));
      expect(await holds.isHeld(a)).toBe(false);
      const direct = await holds.create(acc, {
        name: 'd',
        description: '',
        workspaceId: null,
        collectionIds: [a, a],
        clientId: 'cli_1',
      });
      expect([await holds.isHeld(a), await holds.isHeld(b)]).toEqual([true, false]);
      const wide = await holds.create(acc, {
        name: 'w',
        description: '',
        workspaceId: ws,
        collectionIds: [],
        clientId: 'cli_1',
      });
      expect([await holds.isHeld(a), await holds.isHeld(b), await holds.isHeld(elsewhere)]).toEqual([
        true,
        true,
        false,
      ]);
      expect((await holds.covering({ accountId: acc, collectionIds: [a] })).map((h) => h.id)).toEqual([direct, wide]);
      expect(await holds.release(acc, wide, 'cli_1')).toBe(true);
      expect(await holds.release(acc, wide, 'cli_1')).toBe(false);
      expect([await holds.isHeld(a), await holds.isHeld(b)]).toEqual([true, false]);
      expect(await holds.release('acc_other', direct, 'cli_1')).toBe(false);
      await holds.release(acc, direct, 'cli_1');
      expect(await holds.isHeld(a)).toBe(false);
    });

    it('the deletion guard refuses with 409 naming the hold, and ignores other accounts', async () => {
      const acc = await seedAccount(db);
      const ws = await seedWorkspace(db, acc);
      const col = await seedCollection(db, acc, ws);
      const id = await holds.create(acc, {
        name: 'Case 7',
        description: '',
        workspaceId: ws,
        collectionIds: [],
        clientId: 'cli_1',
      });
      const guard = legalHoldGuard(db);
      await expect(guard({ accountId: acc, collectionIds: [col] })).rejects.toMatchObject({
        status: 409,
        detail: expect.stringContaining(`"Case 7" (${id})`),
      });
      await expect(guard({ accountId: acc, collectionIds: [], workspaceId: ws })).rejects.toMatchObject({
        status: 409,
      });
      await expect(guard({ accountId: 'acc_other', collectionIds: [col] })).resolves.toBeUndefined();
    });
  });
}
