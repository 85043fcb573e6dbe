import crypto from 'node:crypto';
import pg from 'pg';
import { migrate, openDatabase } from '../src/store/db.ts';
import { ProviderBudgetRepo } from '../src/store/provider-budgets.ts';

/**
 * `npm run bench -- leases`: the PostgreSQL concurrency leases of one credential's budget under contention: 32
 * takers (a pool of 16 connections) each taking a lease of 8 slots, holding it for one event-loop turn and releasing
 * it, for BENCH_LEASE_SECONDS (default 10). Prints leases taken per second and how many tries were refused.
 */
export async function benchLeases(): Promise<Record<string, string>> {
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server');
  const schema = `bench_${crypto.randomBytes(4).toString('hex')}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(q).finally(() => c.end());
  };
  await admin(`create schema ${schema}`);
  const db = openDatabase({ url, schema, poolSize: 16 });
  try {
    await migrate(db, { schema });
    const repo = new ProviderBudgetRepo(db);
    const seconds = Number(process.env.BENCH_LEASE_SECONDS ?? 10);
    const end = Date.now() + seconds * 1000;
    let taken = 0;
    let refused = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (Date.now() < end) {
          const id = crypto.randomUUID();
          if (await repo.tryLease('zoom:bench', 8, id, Date.now() + 60_000, Date.now())) {
            taken++;
            await new Promise((r) => setImmediate(r));
            await repo.releaseLeases('zoom:bench', [id]);
          } else refused++;
        }
      }),
    );
    return {
      'leases: PostgreSQL, 32 takers of 8 slots': `${(taken / seconds).toFixed(0)} leases/s taken and released, ${(refused / seconds).toFixed(0)} refusals/s`,
    };
  } finally {
    await db.destroy();
    await admin(`drop schema ${schema} cascade`);
  }
}
