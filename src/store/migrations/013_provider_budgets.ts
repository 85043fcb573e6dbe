import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * `provider_budgets`: the request rate learned per provider credential (additive increase, multiplicative
 * decrease), kept across runs and shared by every process. On PostgreSQL also the fleet-wide budget's own state
 * when there is no Redis: `provider_budget_counters` (rate-limiter-flexible's table layout, points as bigint: a
 * pause stores its end in epoch ms) and `provider_budget_leases` (the concurrency semaphore, one row per request in
 * flight, expiring unless renewed so a killed process gives its slots back).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('provider_budgets')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('credential', 'text', (c) => c.notNull())
    .addColumn('rate', postgres ? 'double precision' : 'real', (c) => c.notNull())
    .addColumn('ceiling', postgres ? 'double precision' : 'real')
    .addColumn('ceiling_at_ms', 'bigint')
    .addColumn('cut_at_ms', 'bigint')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  if (!postgres) return;
  await db.schema
    .createTable('provider_budget_counters')
    .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('points', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expire', 'bigint')
    .execute();
  await db.schema
    .createTable('provider_budget_leases')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('lease_id', 'text', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('provider_budget_leases_pk', ['key', 'lease_id'])
    .execute();
  await sql`create index provider_budget_counters_expire on provider_budget_counters (expire)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('provider_budget_leases').ifExists().execute();
  await db.schema.dropTable('provider_budget_counters').ifExists().execute();
  await db.schema.dropTable('provider_budgets').execute();
}
