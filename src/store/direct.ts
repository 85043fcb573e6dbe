import type SQLite from 'better-sqlite3';
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
   * Changes whenever the database may have changed since the last call: a commit by another connection (another
   * process: `PRAGMA data_version`) or any row written by this one (`total_changes()`, counted as each statement
   * runs, committed or not). Undefined when the connection is not free.
   */
  changeStamp(): string | undefined;
}

const handles = new WeakMap<Executor, DirectSqlite>();

export function registerDirectSqlite(db: Executor, sqlite: SQLite.Database): void {
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  const totalChanges = sqlite.prepare('select total_changes()').pluck();
  const free = () => sqlite.open && !sqlite.inTransaction;
  handles.set(db, {
    read<R>(stmt: SQLite.Statement, parameters: readonly unknown[]) {
      if (!free() || stmt.busy) return undefined;
      return stmt.all(parameters as unknown[]) as R[];
    },
    prepare: (sql) => sqlite.prepare(sql),
    changeStamp() {
      if (!free() || dataVersion.busy || totalChanges.busy) return undefined;
      // data_version first: a commit landing between the two reads makes the next stamp differ, never this one stale
      return `${String(dataVersion.get())}:${String(totalChanges.get())}`;
    },
  });
}

/** The handle of the database itself (never of a transaction: those are other Kysely instances), on SQLite only. */
export function directSqlite(db: Executor): DirectSqlite | undefined {
  return handles.get(db);
}

/**
 * A read whose results are kept while the database is unchanged (SQLite only; on PostgreSQL, or in a transaction,
 * or while the connection is busy, every call reads). Exact, not a time window: the change stamp is read before
 * the value, so a write landing in between only costs the next call a miss, and a result read under an older
 * stamp is never filed under a newer one. Callers must not mutate what they get.
 */
export function whileUnchanged<K, V>(read: (db: Executor, key: K) => Promise<V>, maxEntries = 10_000) {
  const states = new WeakMap<Executor, { stamp: string; values: Map<K, V> }>();
  return async (db: Executor, key: K): Promise<V> => {
    const stamp = directSqlite(db)?.changeStamp();
    if (stamp === undefined) return read(db, key);
    let state = states.get(db);
    if (!state) states.set(db, (state = { stamp, values: new Map() }));
    if (state.stamp !== stamp) {
      state.stamp = stamp;
      state.values.clear();
    }
    if (state.values.has(key)) return state.values.get(key)!;
    const value = await read(db, key);
    if (state.stamp === stamp) {
      if (state.values.size >= maxEntries) state.values.clear();
      state.values.set(key, value);
    }
    return value;
  };
}
