import type SQLite from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Executor } from './transaction.ts';

/**
 * The embedded database's own handle, for reads that need not queue behind Kysely's connection lock.
 *
 * SQLite has one connection here and Kysely serialises everything on it with a lock (a promise chain) so that a
 * transaction's statements are never interleaved with others. A single read that runs when no transaction is
 * open on the connection and no statement is being iterated cannot interleave with anything: better-sqlite3 runs
 * it synchronously, start to end, in SQLite's own read transaction (it sees exactly what Kysely would have). When
 * a transaction is open (its BEGIN ran, its COMMIT has not), the read goes through Kysely and waits its turn, as
 * before: reading inside someone else's open transaction would see its uncommitted writes.
 */
export interface DirectSqlite {
  /** The rows, or undefined when the connection is not free (the caller then goes through Kysely). */
  read<R>(stmt: SQLite.Statement, parameters: readonly unknown[]): R[] | undefined;
  prepare(sql: string): SQLite.Statement;
  /**
   * Grows whenever the database may have changed since the last call: a commit by another connection (another
   * process: `PRAGMA data_version`) or any row written by this one (`total_changes()`, counted as each statement
   * runs, committed or not). A later look never gets a smaller stamp. Undefined when the connection is not free.
   */
  changeStamp(): number | undefined;
}

const handles = new WeakMap<Executor, DirectSqlite>();

export function registerDirectSqlite(db: Executor, sqlite: SQLite.Database): void {
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  const totalChanges = sqlite.prepare('select total_changes()').pluck();
  const free = () => sqlite.open && !sqlite.inTransaction;
  // both counters only grow, so a new pair is always a later state: number it one more than the last
  let seen = { dataVersion: -1, totalChanges: -1, stamp: 0 };
  handles.set(db, {
    read<R>(stmt: SQLite.Statement, parameters: readonly unknown[]) {
      if (!free() || stmt.busy) return undefined;
      return stmt.all(parameters) as R[];
    },
    prepare: (sql) => sqlite.prepare(sql),
    changeStamp() {
      if (!free() || dataVersion.busy || totalChanges.busy) return undefined;
      // data_version first: a commit landing between the two reads makes the next stamp differ, never this one stale
      const [dv, tc] = [dataVersion.get() as number, totalChanges.get() as number];
      if (dv !== seen.dataVersion || tc !== seen.totalChanges)
        seen = { dataVersion: dv, totalChanges: tc, stamp: seen.stamp + 1 };
      return seen.stamp;
    },
  });
}

/** The handle of the database itself (never of a transaction: those are other Kysely instances), on SQLite only. */
export function directSqlite(db: Executor): DirectSqlite | undefined {
  return handles.get(db);
}

/** The database's change stamp now (see DirectSqlite.changeStamp); undefined on PostgreSQL or while the connection is busy. */
export function changeStamp(db: Executor): number | undefined {
  return directSqlite(db)?.changeStamp();
}

/**
 * A read whose results are kept while the database is unchanged (SQLite only; on PostgreSQL, or in a transaction,
 * or while the connection is busy, every call reads). Exact, not a time window: the change stamp is read before
 * the value, so a write landing in between only costs the next call a miss, and a result read under an older
 * stamp is never filed under a newer one. Callers must not mutate what they get.
 *
 * A caller may pass a stamp it read earlier in the same request (one look at the counters per request instead of
 * one per read): the answer is then as of a moment within that request, which is all a request can ask for, so
 * a request that has written must not pass one (it could be served what it read before its write). A stamp
 * older than the newest seen reads through, without filing.
 */
export function whileUnchanged<K, V>(read: (db: Executor, key: K) => Promise<V>, maxEntries = 10_000) {
  const states = new WeakMap<Executor, { stamp: number; values: Map<K, V> }>();
  return async (db: Executor, key: K, stamp = changeStamp(db)): Promise<V> => {
    if (stamp === undefined) return read(db, key);
    let state = states.get(db);
    if (!state || state.stamp < stamp) states.set(db, (state = { stamp, values: new Map() }));
    else if (state.stamp > stamp) return read(db, key);
    if (state.values.has(key)) return state.values.get(key)!;
    const value = await read(db, key);
    if (states.get(db) === state) {
      if (state.values.size >= maxEntries) state.values.clear();
      state.values.set(key, value);
    }
    return value;
  };
}

const pools = new WeakMap<Executor, pg.Pool>();

export function registerDirectPg(db: Executor, pool: pg.Pool): void {
  pools.set(db, pool);
}

/**
 * PostgreSQL only (undefined elsewhere): runs `query` on a connection of the database's pool and hands each row to
 * `onRow` as it is parsed, keeping none; resolves with the number of rows. Kysely (pg's own result) gathers a
 * query's rows in one array until its last one arrives, across several socket reads: V8 scavenges in between find
 * the array and its rows alive and promote them, and the young generation grows to its maximum (measured: +166 MiB
 * RSS walking 300,000 items in batches of 500, whatever the batch size; +7 MiB with the rows handed on one by one).
 */
export function eachPgRow<R>(
  db: Executor,
  query: CompiledQuery<R>,
  onRow: (row: R) => void,
): Promise<number> | undefined {
  const pool = pools.get(db);
  if (!pool) return undefined;
  return pool.connect().then(
    (client) =>
      new Promise<number>((resolve, reject) => {
        let rows = 0;
        let failed: Error | undefined;
        const q = new pg.Query(query.sql, [...query.parameters]);
        q.on('row', (row: R) => {
          if (failed !== undefined) return;
          rows += 1;
          try {
            onRow(row);
          } catch (err) {
            failed = err as Error;
          }
        });
        q.on('error', (err: Error) => {
          client.release(err);
          reject(err);
        });
        q.on('end', () => {
          client.release();
          if (failed === undefined) resolve(rows);
          else reject(failed);
        });
        client.query(q);
      }),
  );
}
