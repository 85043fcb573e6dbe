import type SQLite from 'better-sqlite3';
import type { Compilable, CompiledQuery } from 'kysely';
import { directSqlite } from './direct.ts';
import type { Executor } from './transaction.ts';

/**
 * A hot read, built and compiled once per database handle. Kysely builds and compiles a query on every call,
 * which costs more than the indexed read itself on the request path (token lookup, collection by id). `build`
 * is called once with stand-in arguments; each call runs the same SQL with its own arguments in their places.
 * On SQLite the statement is prepared once too and, when the connection is free, run without queueing behind
 * Kysely's connection lock (store/direct.ts says when that is safe).
 */
export function compiledOnce<A extends string[], R>(build: (db: Executor, ...args: A) => Compilable<R>) {
  const cache = new WeakMap<Executor, { query: CompiledQuery<R>; slots: number[]; stmt?: SQLite.Statement }>();
  return async (db: Executor, ...args: A): Promise<R[]> => {
    let entry = cache.get(db);
    if (!entry) {
      // NUL never reaches a query from outside (the HTTP edge refuses it), so these cannot collide with a value
      const standIns = args.map((_, i) => `\u0000arg${i}\u0000`) as A;
      const query = build(db, ...standIns).compile();
      entry = {
        query,
        slots: query.parameters.map((p) => (typeof p === 'string' ? standIns.indexOf(p) : -1)),
        stmt: directSqlite(db)?.prepare(query.sql),
      };
      cache.set(db, entry);
    }
    const { query, slots, stmt } = entry;
    const parameters = query.parameters.map((p, i) => (slots[i] >= 0 ? args[slots[i]] : p));
    const rows = stmt && directSqlite(db)!.read<R>(stmt, parameters);
    return rows ?? (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
