// SQLite's WAL checkpoints off the event loop. By default the connection that commits past 1,000 WAL pages copies the
// WAL back into the database and syncs it, inside that commit: a write-heavy run (small items, a page a transaction)
// spent 56 commits of 1,156 at 20–40 ms each doing it, 1.3 s of a 15 s run's event loop (docs/benchmarks.md, session
// 21). Here the committing connection never checkpoints; a thread with a connection of its own to the same file does,
// every CHECKPOINT_EVERY_MS. Should the thread die, the connection checkpoints for itself again.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the thread checkpoints (a passive checkpoint of an empty WAL costs next to nothing). */
export const CHECKPOINT_EVERY_MS = 250;
/** SQLite's own default: the connection checkpoints past this many WAL pages. */
const AUTOCHECKPOINT_PAGES = 1000;

const THREAD = `
const { workerData, parentPort } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy or locked: the next tick tries again
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  /** Stops the thread after one last checkpoint; the database file's own connection may close after. */
  stop(): Promise<void>;
}

/** Starts checkpointing `file` off the event loop and turns `sqlite`'s own checkpoints off while it runs. */
export function startWalCheckpointer(
  sqlite: SQLite.Database,
  file: string,
  everyMs = CHECKPOINT_EVERY_MS,
): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD, { eval: true, workerData: { driver, file, everyMs } });
  worker.unref();
  sqlite.pragma('wal_autocheckpoint = 0');
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      // Died (or could not open the file): the connection checkpoints for itself again.
      if (!stopping && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      resolve();
    }),
  );
  worker.on('error', () => undefined);
  return {
    async stop() {
      stopping = true;
      worker.postMessage('stop');
      await exited;
    },
  };
}
