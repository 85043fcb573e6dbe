import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newPgPool } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';

for (const database of testDatabases.filter((d) => d.name === 'postgres')) {
  describe('a PostgreSQL pool that loses an idle connection', () => {
    it('keeps the process running and opens a new connection for the next query', async () => {
      const opened = await database.open();
      const pool = newPgPool({ url: opened.url!, max: 2 });
      try {
        const first = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
        expect(pool.idleCount).toBe(1);
        // as a server restart or an administrator's terminate does to an idle connection
        await sql`select pg_terminate_backend(${first})`.execute(opened.db);
        for (let i = 0; i < 200 && pool.totalCount > 0; i++) await new Promise((r) => setTimeout(r, 10));
        expect(pool.totalCount).toBe(0);
        const next = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
        expect(next).not.toBe(first);
      } finally {
        await pool.end();
        await opened.close();
      }
    });

    it('keeps the process running when a checked-out client loses its connection between two queries', async () => {
      const opened = await database.open();
      const pool = newPgPool({ url: opened.url!, max: 2 });
      const client = await pool.connect();
      try {
        const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
        // as a server restart does to a connection a transaction holds while it awaits other work
        await sql`select pg_terminate_backend(${pid})`.execute(opened.db);
        let failed: unknown;
        for (let i = 0; i < 200 && !failed; i++) {
          await new Promise((r) => setTimeout(r, 10));
          failed = await client.query('select 1').then(
            () => undefined,
            (err: unknown) => err,
          );
        }
        // the client's next query fails; the error event pg also emits has a listener (without it, the process ends)
        expect(failed).toBeInstanceOf(Error);
        client.release(failed as Error);
        expect((await pool.query<{ one: number }>('select 1 as one')).rows[0].one).toBe(1);
      } finally {
        await pool.end();
        await opened.close();
      }
    });
  });
}
