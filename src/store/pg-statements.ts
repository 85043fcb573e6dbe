// PostgreSQL statements prepared once per connection. Kysely sends every query unnamed, so the server parses,
// analyses and plans it on every call: for the small statements of a unit's life (a point read, a counter update)
// that is most of the server's work. A statement this process has sent before goes by a name derived from its
// text: each connection parses it once, and after five calls the server may keep a generic plan (it does when that
// plan costs no more than planning each call). Measured on a `unit_jobs` progress update: 116–160 µs of server CPU
// unnamed, 44–50 µs named; 67–100 µs of this process's CPU, 42–58 µs named. Off unless DATABASE_PREPARED_STATEMENTS
// is true: a sync of 2,000 one-file custodians used a quarter less of the server's CPU, but 20,400 small items synced
// 7–18 % slower, for a reason not found yet (docs/benchmarks.md).
import crypto from 'node:crypto';
import type pg from 'pg';

/** Distinct statements a process names; each connection prepares at most these (a few kilobytes each). */
const MAX_NAMED = 400;
/** Statements with more parameters (a page's multi-row insert) vary in length with the page and are sent unnamed. */
const MAX_PARAMETERS = 32;
const MAX_TEXT = 8192;

const names = new Map<string, string>();
const seen = new Set<string>();

/** The name of a statement sent a second time, while fewer than MAX_NAMED are named; undefined otherwise. */
function nameOf(text: string, parameters: number): string | undefined {
  const known = names.get(text);
  if (known !== undefined) return known;
  if (parameters === 0 || parameters > MAX_PARAMETERS || text.length > MAX_TEXT || names.size >= MAX_NAMED) {
    return undefined;
  }
  // once is not enough: a statement that runs once (a migration, a start-up read) keeps no slot
  if (!seen.has(text)) {
    if (seen.size >= 4 * MAX_NAMED) seen.clear();
    seen.add(text);
    return undefined;
  }
  const name = `c_${crypto.hash('sha1', text, 'base64url')}`;
  names.set(text, name);
  return name;
}

/**
 * A statement prepared on this connection before a table it reads changed shape (a migration by another process:
 * `select *` of a table that gained a column) fails with this, and keeps failing on this connection.
 */
function isStalePlan(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '');
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Makes this new connection of the pool send the statements of `nameOf` by name. A statement whose prepared form
 * went stale on this connection is sent unnamed from then on; outside a transaction the failed call is sent again
 * unnamed at once, inside one the error stands (the transaction is aborted) and the caller's retry succeeds.
 */
export function nameStatements(client: pg.PoolClient): void {
  const plain = client.query.bind(client) as Query;
  const stale = new Set<string>();
  let inTransaction = false;
  const named: Query = (config, values, callback) => {
    if (typeof config !== 'string' || !Array.isArray(values)) return plain(config, values, callback);
    if (/^\s*(begin|start transaction)\b/i.test(config)) inTransaction = true;
    else if (/^\s*(commit|rollback|end)\b/i.test(config)) inTransaction = false;
    const name = nameOf(config, values.length);
    if (name === undefined || stale.has(name)) return plain(config, values, callback);
    const result = (plain({ name, text: config, values }) as Promise<unknown>).catch((error: unknown) => {
      if (!isStalePlan(error)) throw error;
      stale.add(name);
      if (inTransaction) throw error;
      return plain(config, values);
    });
    // pool.query's form: the result to a callback (pg returns nothing then)
    if (typeof callback !== 'function') return result;
    result.then(
      (res) => (callback as (e: unknown, r?: unknown) => void)(null, res),
      (error: unknown) => (callback as (e: unknown) => void)(error),
    );
    return undefined;
  };
  (client as unknown as { query: Query }).query = named;
}
