import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type MigrationProvider } from 'kysely';
import type { DB } from './schema.ts';
import { migrations } from './migrations/index.ts';

export type Dialect = 'sqlite' | 'postgres';
export type Database = Kysely<DB>;

export interface DatabaseOptions {
  /** postgres://… selects PostgreSQL; otherwise the SQLite file at sqlitePath. */
  url?: string;
  sqlitePath?: string;
  /** PostgreSQL only: the schema to use (tests isolate themselves in their own schema). */
  schema?: string;
  poolSize?: number;
}

// int8 and numeric come back from pg as strings by default; sizes and counters fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));

const dialects = new WeakMap<object, Dialect>();
const schemas = new WeakMap<object, string>();

export function dialectOf(db: Kysely<any>): Dialect {
  const d = dialects.get(db);
  if (!d) throw new Error('database was not created by openDatabase');
  return d;
}

export function openDatabase(opts: DatabaseOptions): Database {
  let db: Database;
  let dialect: Dialect;
  if (opts.url) {
    const pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.poolSize ?? 10,
      options: opts.schema ? `-c search_path=${opts.schema}` : undefined,
    });
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    dialect = 'postgres';
    if (opts.schema) schemas.set(db, opts.schema);
  } else {
    const file = opts.sqlitePath ?? ':memory:';
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    // The CLI and the server may write at the same time: wait for the lock instead of failing.
    sqlite.pragma('busy_timeout = 5000');
    db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
    dialect = 'sqlite';
  }
  dialects.set(db, dialect);
  return db;
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrate(db: Database): Promise<void> {
  if (dialectOf(db) === 'sqlite') return runMigrations(db, undefined);
  // Several API and worker processes may boot at once: one migrates, the others wait. The advisory lock is
  // session-level, so it is taken and released on one pinned connection (never on whichever the pool hands out).
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      // Kysely looks for its bookkeeping tables in every schema unless told which one: always name ours, so
      // databases living side by side in schemas of one PostgreSQL database never see each other's.
      const schema = schemas.get(db) ?? (await sql<{ schema: string }>`select current_schema() as schema`.execute(conn)).rows[0]?.schema;
      await runMigrations(db, schema);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}

/** Also taken by whoever drops a schema (tests), so that a drop never races a migration's catalogue reads. */
export const MIGRATION_LOCK = 724001;

async function runMigrations(db: Database, migrationTableSchema: string | undefined): Promise<void> {
  const { error, results } = await new Migrator({ db, provider, ...(migrationTableSchema && { migrationTableSchema }) }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${(error as Error).message ?? String(error)}`);
  }
}

/** Pings the database (used by /readyz). */
export async function ping(db: Database): Promise<void> {
  await sql`select 1`.execute(db);
}
