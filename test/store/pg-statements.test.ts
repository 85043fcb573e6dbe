// Statements a process sends again go to PostgreSQL by name, prepared once per connection (pg-statements.ts). The
// server's own list of the connection's prepared statements (pg_prepared_statements) is the oracle.
import crypto from 'node:crypto';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { newPgPool } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';

for (const database of testDatabases.filter((d) => d.name === 'postgres')) {
  describe('PostgreSQL statements sent again', () => {
    /** One connection (temporary tables and prepared statements are the connection's), a table of its own. */
    const withPool = async (prepared: boolean, fn: (client: pg.PoolClient, table: string) => Promise<void>) => {
      const opened = await database.open();
      const pool = newPgPool({ url: opened.url!, max: 1, preparedStatements: prepared });
      const client = await pool.connect();
      const table = `t_${crypto.randomBytes(4).toString('hex')}`;
      try {
        await client.query(`create temporary table ${table} (a int)`);
        await client.query(`insert into ${table} values (1), (2)`);
        await fn(client, table);
      } finally {
        client.release();
        await pool.end();
        await opened.close();
      }
    };
    const preparedOn = async (client: pg.PoolClient, text: string) =>
      (
        await client.query<{ n: number }>(
          `select count(*)::int as n from pg_prepared_statements where statement = $1`,
          [text],
        )
      ).rows[0].n;

    it('prepares a statement the second time it is sent, and runs it by name after that', async () => {
      await withPool(true, async (client, table) => {
        const text = `select a from ${table} where a = $1`;
        expect((await client.query(text, [1])).rows).toEqual([{ a: 1 }]);
        expect(await preparedOn(client, text)).toBe(0);
        for (const a of [2, 1, 2, 1, 2, 1, 2]) expect((await client.query(text, [a])).rows).toEqual([{ a }]);
        expect(await preparedOn(client, text)).toBe(1);
        // the second call and the six after it ran the prepared statement (PostgreSQL 14+ counts its plans)
        const runs = await client.query<{ n: number }>(
          'select (generic_plans + custom_plans)::int as n from pg_prepared_statements where statement = $1',
          [text],
        );
        expect(runs.rows[0].n).toBe(7);
      });
    });

    it('sends a statement of many parameters unnamed, and names nothing when prepared statements are off', async () => {
      await withPool(true, async (client, table) => {
        const many = `select a from ${table} where a in (${Array.from({ length: 40 }, (_, i) => `$${i + 1}`).join(', ')})`;
        for (let i = 0; i < 3; i++)
          await client.query(
            many,
            Array.from({ length: 40 }, (_, i) => i),
          );
        expect(await preparedOn(client, many)).toBe(0);
      });
      await withPool(false, async (client, table) => {
        const text = `select a from ${table} where a = $1`;
        for (let i = 0; i < 3; i++) await client.query(text, [1]);
        expect(await preparedOn(client, text)).toBe(0);
      });
    });

    it('sends a statement whose table changed shape unnamed from then on: at once outside a transaction', async () => {
      await withPool(true, async (client, table) => {
        const text = `select * from ${table} where a = $1`;
        for (let i = 0; i < 3; i++) await client.query(text, [1]);
        expect(await preparedOn(client, text)).toBe(1);
        // another process's migration
        await client.query(`alter table ${table} add column b text default 'x'`);
        expect((await client.query(text, [1])).rows).toEqual([{ a: 1, b: 'x' }]);
        expect((await client.query(text, [2])).rows).toEqual([{ a: 2, b: 'x' }]);
      });
    });

    it('inside a transaction the changed table fails that transaction once; the next one succeeds', async () => {
      await withPool(true, async (client, table) => {
        const text = `select * from ${table} where a = $1`;
        for (let i = 0; i < 3; i++) await client.query(text, [1]);
        await client.query(`alter table ${table} add column b text default 'x'`);
        await client.query('begin', []);
        await expect(client.query(text, [1])).rejects.toThrow(/cached plan must not change result type/);
        await client.query('rollback', []);
        await client.query('begin', []);
        expect((await client.query(text, [1])).rows).toEqual([{ a: 1, b: 'x' }]);
        await client.query('commit', []);
      });
    });
  });
}
