import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  sql,
  type SqliteDatabase,
} from 'kysely';
import { Migrator, type MigrationProvider } from 'kysely/migration';
import type { DB } from './schema.ts';
import { migrations } from './migrations/index.ts';
import { registerDirectPg, registerDirectSqlite } from './direct.ts';
import { nameStatements } from './pg-statements.ts';

export type Dialect = 'sqlite' | 'postgres';
export type Database = Kysely<DB>;

export interface DatabaseOptions {
  /** postgres://… selects PostgreSQL; otherwise the SQLite file at sqlitePath. */
  url?: string;
  sqlitePath?: string;
  /** PostgreSQL only: the schema to use (tests isolate themselves in their own schema). */
  schema?: string;
  poolSize?: number;
  /** PostgreSQL only: statements sent again go by name, prepared once per connection (pg-statements.ts). */
  preparedStatements?: boolean;
}

// int8 and numeric come back from pg as strings by default; sizes and counters fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));

/** The dialect of a database handle or of a transaction (a transaction is a Kysely of its own). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handle of any schema (migrations' included)
export function dialectOf(db: Kysely<any>): Dialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return 'postgres';
  if (adapter instanceof SqliteAdapter) return 'sqlite';
  throw new Error(`unsupported database adapter ${adapter.constructor.name}`);
}

/**
 * A PostgreSQL pool that survives losing a connection. pg emits an idle client's error (the server restarted, failed
 * over, or an administrator or PgBouncer closed the connection) on its pool, and a checked-out client's on the client,
 * and an 'error' event nobody listens to ends the process. The pool has already dropped an idle client; the next query
 * opens a new connection, and a query in flight, or the next one of a checked-out client, gets its own error.
 */
export function newPgPool(opts: {
  url: string;
  max: number;
  /** the schema to use (tests isolate themselves in their own schema) */
  schema?: string;
  /** statements sent again go by name, prepared once per connection (pg-statements.ts) */
  preparedStatements?: boolean;
}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max,
    options: opts.schema ? `-c search_path=${opts.schema}` : undefined,
  });
  pool.on('error', () => undefined);
  // A connection that drops while its client is checked out between two queries (in a transaction awaiting other
  // work) fails the client's next query; the 'error' event it also emits would end the process with no listener.
  pool.on('connect', (client) => client.on('error', () => undefined));
  if (opts.preparedStatements) pool.on('connect', nameStatements);
  return pool;
}

export function openDatabase(opts: DatabaseOptions): Database {
  if (opts.url) {
    const pool = newPgPool({
      url: opts.url,
      max: opts.poolSize ?? 10,
      schema: opts.schema,
      preparedStatements: opts.preparedStatements,
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    registerDirectPg(db, pool);
    return db;
  }
  const file = opts.sqlitePath ?? ':memory:';
  if (file !== ':memory:') createPrivateFile(file);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // The CLI and the server may write at the same time: wait for the lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  registerDirectSqlite(db, sqlite);
  return db;
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** `schema`: the PostgreSQL schema the database lives in, when DatabaseOptions.schema named one. */
export async function migrate(db: Database, opts: { schema?: string } = {}): Promise<void> {
  if (dialectOf(db) === 'sqlite') return runMigrations(db, undefined);
  // Several API and worker processes may boot at once: one migrates, the others wait. The advisory lock is
  // session-level, so it is taken and released on one pinned connection (never on whichever the pool hands out).
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      // Kysely looks for its bookkeeping tables in every schema unless told which one: always name ours, so
      // databases living side by side in schemas of one PostgreSQL database never see each other's. The pool's
      // search_path (DatabaseOptions.schema, or options in the URL) names it.
      const schema =
        opts.schema ?? (await sql<{ schema: string }>`select current_schema() as schema`.execute(conn)).rows[0]?.schema;
      await runMigrations(db, schema);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}

/** Also taken by whoever drops a schema (tests), so that a drop never races a migration's catalogue reads. */
export const MIGRATION_LOCK = 724001;

async function runMigrations(db: Database, migrationTableSchema: string | undefined): Promise<void> {
  const { error, results } = await new Migrator({
    db,
    provider,
    ...(migrationTableSchema && { migrationTableSchema }),
  }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- Kysely types the failure `unknown`; a non-Error is shown as it stringifies
    throw new Error(`migration ${failed} failed: ${(error as Error).message ?? String(error)}`);
  }
}

/** Pings the database (used by /readyz). */
export async function ping(db: Database): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * The database file (and so its -wal and -shm files, which SQLite creates with the database's mode) is readable by
 * the service's user only; its folder is created 0700. A file left 0644 by an older version is tightened.
 */
function createPrivateFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((fs.statSync(f).mode & 0o777) !== 0o600) fs.chmodSync(f, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/**
 * Kysely prepares every query anew; preparing costs as much as running a small indexed read. Statements are
 * reused by SQL text (SQLite re-prepares them itself after a schema change); one still being iterated (a
 * streamed query) is busy, so a fresh one is prepared for that call.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return {
    prepare(source: string) {
      const cached = cache.get(source);
      if (cached && !cached.busy) return cached;
      const stmt = prepare(source);
      if (!cached) {
        if (cache.size >= 500) cache.clear();
        cache.set(source, stmt);
      }
      return stmt;
    },
    close: () => void sqlite.close(),
  };
}
