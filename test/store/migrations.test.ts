import crypto from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MIGRATION_LOCK, migrate, openDatabase } from '../../src/store/db.ts';
import { pgUrl } from '../support/databases.ts';

describe.skipIf(!pgUrl)('migrations on PostgreSQL', () => {
  async function withSchemas(n: number, fn: (schemas: string[]) => Promise<void>) {
    const schemas = Array.from({ length: n }, () => `m_${crypto.randomBytes(5).toString('hex')}`);
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    for (const s of schemas) await admin.query(`create schema ${s}`);
    try {
      await fn(schemas);
    } finally {
      await admin.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      for (const s of schemas) await admin.query(`drop schema ${s} cascade`);
      await admin.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      await admin.end();
    }
  }

  it('migrates each database named only by search_path in DATABASE_URL on its own', async () => {
    await withSchemas(2, async (schemas) => {
      for (const schema of schemas) {
        const url = `${pgUrl}${pgUrl!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
        const db = openDatabase({ url, poolSize: 3 });
        await migrate(db);
        const tables = await db.introspection.getTables();
        expect(tables.filter((t) => t.schema === schema).map((t) => t.name)).toEqual(
          expect.arrayContaining(['accounts', 'collections', 'items']),
        );
        await db.destroy();
      }
    });
  });

  it('lets several processes migrate one fresh database at once, and frees the lock afterwards', async () => {
    await withSchemas(1, async ([schema]) => {
      const dbs = Array.from({ length: 4 }, () => openDatabase({ url: pgUrl, schema, poolSize: 3 }));
      await Promise.all(dbs.map((db) => migrate(db, { schema })));
      // the lock was not left behind on a pooled connection: it can be taken while those pools are still open
      // (other test files may hold it while they migrate, several in a row on a loaded machine: a wait, not a try)
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query('set statement_timeout = 50000');
      await expect(c.query('select pg_advisory_lock($1)', [MIGRATION_LOCK])).resolves.toBeDefined();
      await c.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      await c.end();
      await Promise.all(dbs.map((db) => db.destroy()));
    });
  });
});
