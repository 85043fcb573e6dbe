import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeStamp, whileUnchanged } from '../../src/store/direct.ts';
import type { Database } from '../../src/store/db.ts';
import type { Executor } from '../../src/store/transaction.ts';
import { testDatabases } from '../support/databases.ts';

const sqlite = testDatabases.find((d) => d.name === 'sqlite')!;
const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The read cache of store/direct.ts, with the stamp a request reads once and passes to its later reads. The
 * request-level tests (test/e2e/fast-path.test.ts) pin what a client sees; these pin the rules behind it: what is
 * kept, when a stamp grows, and that a stamp older than the newest seen never serves or files a kept answer.
 */
describe('reads kept while the SQLite database is unchanged', () => {
  let handle: Awaited<ReturnType<typeof sqlite.open>>;
  let db: Database;
  let reads = 0;
  const nameOf = whileUnchanged(async (d: Executor, id: string) => {
    reads++;
    return (await d.selectFrom('accounts').select('name').where('id', '=', id).executeTakeFirst())?.name;
  });
  const rename = (name: string) => db.updateTable('accounts').set({ name }).where('id', '=', 'acc_1').execute();

  beforeAll(async () => {
    handle = await sqlite.open();
    db = handle.db;
    await db
      .insertInto('accounts')
      .values({ id: 'acc_1', name: 'first', created_at: new Date().toISOString() })
      .execute();
  });
  afterAll(() => handle?.close());

  it('reads once while nothing is written, and again after a write by this connection', async () => {
    reads = 0;
    expect(await nameOf(db, 'acc_1')).toBe('first');
    expect(await nameOf(db, 'acc_1')).toBe('first');
    expect(reads).toBe(1);
    const before = changeStamp(db)!;
    await rename('second');
    expect(changeStamp(db)).toBeGreaterThan(before);
    expect(await nameOf(db, 'acc_1')).toBe('second');
    expect(reads).toBe(2);
  });

  it('sees a commit by another process: the stamp grows', async () => {
    const before = changeStamp(db)!;
    expect(changeStamp(db)).toBe(before);
    const script = `const S = require('better-sqlite3'); const d = new S(process.argv[1]); d.pragma('busy_timeout = 5000'); d.prepare("update accounts set name = 'elsewhere' where id = 'acc_1'").run(); d.close();`;
    execFileSync(process.execPath, ['-e', script, handle.sqlitePath!], { cwd: ROOT });
    expect(changeStamp(db)).toBeGreaterThan(before);
    expect(await nameOf(db, 'acc_1')).toBe('elsewhere');
  });

  it('serves a passed stamp that is the newest from what it kept, and reads through for an older one without filing', async () => {
    await rename('third');
    const old = changeStamp(db)!;
    expect(await nameOf(db, 'acc_1', old)).toBe('third');
    await rename('fourth');
    const current = changeStamp(db)!;
    reads = 0;
    expect(await nameOf(db, 'acc_1', current)).toBe('fourth');
    expect(await nameOf(db, 'acc_1', current)).toBe('fourth');
    expect(reads).toBe(1);
    // a request that looked at the database before the rename and reads now: a read, no kept answer, and what it
    // read is not filed (the next older-stamp call reads again; the newest stamp's answer stands)
    expect(await nameOf(db, 'acc_1', old)).toBe('fourth');
    expect(await nameOf(db, 'acc_1', old)).toBe('fourth');
    expect(reads).toBe(3);
    expect(await nameOf(db, 'acc_1', current)).toBe('fourth');
    expect(reads).toBe(3);
  });

  it('never keeps a read made while a transaction is open, and never reads inside it', async () => {
    await rename('before');
    const stamp = changeStamp(db)!;
    expect(await nameOf(db, 'acc_1', stamp)).toBe('before');
    let during: Promise<string | undefined> | undefined;
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('accounts').set({ name: 'uncommitted' }).where('id', '=', 'acc_1').execute();
        expect(changeStamp(db)).toBeUndefined();
        during = nameOf(db, 'acc_1');
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await during).toBe('before');
    expect(await nameOf(db, 'acc_1')).toBe('before');
  });
});
