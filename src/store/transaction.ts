import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** What every repository is built on: the database or a transaction (a Kysely `Transaction` is a `Kysely`). */
export type Executor = Kysely<DB>;

/** Runs `fn` in the caller's transaction when `ex` is one, else in a new one: statements that must commit together. */
export function atomically<T>(ex: Executor, fn: (trx: Executor) => Promise<T>): Promise<T> {
  return ex.isTransaction ? fn(ex) : ex.transaction().execute(fn);
}
