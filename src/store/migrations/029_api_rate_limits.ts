import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Issue 22. `rate_limits`: the API's per-token budgets (http/rate-limits.ts) when PostgreSQL holds them (no Redis),
 * in rate-limiter-flexible's table layout. It was created at boot under an advisory lock; a migration creates it
 * once. `if not exists`: a database that ran an older release has it already. SQLite keeps them in memory.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema
    .createTable('rate_limits')
    .ifNotExists()
    .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expire', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema.dropTable('rate_limits').ifExists().execute();
}
