import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Issue 25. A PostgreSQL concurrency lease becomes one of `cap` numbered slot rows (`lease_id` = `slot:<n>`) that a
 * single statement claims when it is free or expired, so that taking a lease no longer serialises every request of a
 * credential behind an advisory lock. `holder` is the lease's own id (renewals and releases name it).
 */
const postgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

// The leases table exists on PostgreSQL only (SQLite runs one process; its leases are in memory).
export async function up(db: Kysely<any>): Promise<void> {
  if (postgres(db)) await db.schema.alterTable('provider_budget_leases').addColumn('holder', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (postgres(db)) await db.schema.alterTable('provider_budget_leases').dropColumn('holder').execute();
}
