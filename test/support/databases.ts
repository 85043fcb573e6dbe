import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { MIGRATION_LOCK, migrate, openDatabase, type Database } from '../../src/store/db.ts';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** A fresh, migrated, isolated database (own SQLite file, or own PostgreSQL schema). */
  open(): Promise<{ db: Database; url?: string; schema?: string; sqlitePath?: string; close(): Promise<void> }>;
}

/** PostgreSQL runs when TEST_DATABASE_URL is set; CI always sets it so that half is never skipped there. */
export const pgUrl = process.env.TEST_DATABASE_URL;

export const testDatabases: TestDatabase[] = [
  {
    name: 'sqlite',
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-db-'));
      const sqlitePath = path.join(dir, 'custody.db');
      const db = openDatabase({ sqlitePath });
      await migrate(db);
      return {
        db,
        sqlitePath,
        async close() {
          await db.destroy();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  ...(pgUrl
    ? [
        {
          name: 'postgres' as const,
          async open() {
            const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
            const admin = new pg.Client({ connectionString: pgUrl });
            await admin.connect();
            await admin.query(`create schema ${schema}`);
            await admin.end();
            const db = openDatabase({ url: pgUrl, schema, poolSize: 5 });
            await migrate(db, { schema });
            return {
              db,
              url: pgUrl,
              schema,
              async close() {
                await db.destroy();
                const c = new pg.Client({ connectionString: pgUrl });
                await c.connect();
                // a migration elsewhere reads the whole catalogue: never drop a schema under its feet
                await c.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
                await c.query(`drop schema ${schema} cascade`);
                // graphile-worker's schema beside it (src/runtime.ts jobsSchema), when a runtime used it
                await c.query(`drop schema if exists ${schema}_jobs cascade`);
                await c.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
                await c.end();
              },
            };
          },
        },
      ]
    : []),
];

/**
 * Runs a test's own migrator (`work`) under the lock every migration and every schema drop takes (src/store/db.ts
 * migrate): it reads the catalogue, which a schema dropped meanwhile by another test file would break. PostgreSQL only.
 */
export function underMigrationLock<T>(db: Database, postgres: boolean, work: () => Promise<T>): Promise<T> {
  if (!postgres) return work();
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}
