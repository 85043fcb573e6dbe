import type { Compilable, CompiledQuery } from 'kysely';
import type { Executor } from './transaction.ts';

/**
 * A hot read, built and compiled once per database handle. Kysely builds and compiles a query on every call,
 * which costs more than the indexed read itself on the request path (token lookup, collection by id). `build`
 * is called once with stand-in arguments; each call runs the same SQL with its own arguments in their places.
 */
export function compiledOnce<A extends string[], R>(build: (db: Executor, ...args: A) => Compilable<R>) {
  const cache = new WeakMap<Executor, { query: CompiledQuery<R>; slots: number[] }>();
  return async (db: Executor, ...args: A): Promise<R[]> => {
    let entry = cache.get(db);
    if (!entry) {
      // NUL never reaches a query from outside (the HTTP edge refuses it), so these cannot collide with a value
      const standIns = args.map((_, i) => `\u0000arg${i}\u0000`) as A;
      const query = build(db, ...standIns).compile();
      entry = { query, slots: query.parameters.map((p) => (typeof p === 'string' ? standIns.indexOf(p) : -1)) };
      cache.set(db, entry);
    }
    const { query, slots } = entry;
    const parameters = query.parameters.map((p, i) => (slots[i]! >= 0 ? args[slots[i]!] : p));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
