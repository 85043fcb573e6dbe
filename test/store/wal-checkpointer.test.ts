import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { startWalCheckpointer } from '../../src/store/wal-checkpointer.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function walFile(): { file: string; sqlite: SQLite.Database } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-wal-'));
  dirs.push(dir);
  const file = path.join(dir, 'db.sqlite');
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.exec('create table t (x blob)');
  return { file, sqlite };
}

/** Twenty transactions of 1 MiB, each followed by a pause longer than the thread's interval. */
async function write20MiB(sqlite: SQLite.Database, pauseMs: number): Promise<void> {
  const insert = sqlite.prepare('insert into t (x) values (?)');
  for (let i = 0; i < 20; i++) {
    sqlite.transaction(() => {
      for (let k = 0; k < 16; k++) insert.run(Buffer.alloc(65536, i + k));
    })();
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

describe('SQLite WAL checkpoints off the event loop (wal-checkpointer.ts)', () => {
  it('a committing connection never checkpoints, and the thread keeps the WAL from growing', async () => {
    const { file, sqlite } = walFile();
    const checkpointer = startWalCheckpointer(sqlite, file, 10);
    try {
      expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      await write20MiB(sqlite, 40);
      // Without the thread, 20 MiB of commits that never checkpoint leave a WAL of 20 MiB.
      expect(fs.statSync(`${file}-wal`).size).toBeLessThan(8 * 1048576);
    } finally {
      await checkpointer.stop();
      sqlite.close();
    }
  });

  it('the connection checkpoints for itself again when the thread is gone', async () => {
    const { sqlite } = walFile();
    // The thread cannot open its file: it dies at once.
    startWalCheckpointer(sqlite, path.join(os.tmpdir(), 'custody-no-such-dir', 'db.sqlite'), 10);
    try {
      await vi.waitFor(() => expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000));
    } finally {
      sqlite.close();
    }
  });

  it('the embedded database checkpoints through its thread, and closing it leaves no WAL behind', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-wal-'));
    dirs.push(dir);
    const file = path.join(dir, 'custody.db');
    const db = openDatabase({ sqlitePath: file });
    await db.schema.createTable('t').addColumn('x', 'blob').execute();
    // The thread has opened the file by then (it checkpoints every 250 ms).
    await new Promise((resolve) => setTimeout(resolve, 600));
    await db.destroy();
    await vi.waitFor(() => expect(fs.existsSync(`${file}-wal`)).toBe(false));
  });
});
