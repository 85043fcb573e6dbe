import type { Kysely } from 'kysely';

/**
 * Provider change events (issue 15).
 * - `provider_events`: the inbox. A verified Zoom webhook or Graph notification is written here before it is
 *   acknowledged; `dedup_key` is unique per provider, so a repeated delivery is stored once. Worker processes
 *   route pending rows to collections afterwards.
 * - `event_targets`: dirty marks (collection, custodian) waiting for a targeted run; several events for one
 *   collection within the coalescing window become one run.
 * - `graph_subscriptions`: one Graph subscription per (wallet, drive owner), whatever the number of collections
 *   selecting that drive; `sealed_client_state` is the random clientState, sealed.
 * - `wallets.provider_account_id`: the paired Zoom account id (routing key of Zoom webhooks).
 * - `runs.scope`: JSON list of custodian ids an `event` run is limited to; null for full runs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('provider_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('dedup_key', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('route_key', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('deliveries', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('processed_at', 'text')
    .addColumn('outcome', 'text')
    .addUniqueConstraint('provider_events_dedup', ['provider', 'dedup_key'])
    .execute();
  await db.schema
    .createIndex('provider_events_pending')
    .on('provider_events')
    .columns(['status', 'received_at'])
    .execute();

  await db.schema
    .createTable('event_targets')
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('custodian', 'text', (c) => c.notNull())
    .addColumn('first_at', 'text', (c) => c.notNull())
    .addColumn('last_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_targets_pk', ['collection_id', 'custodian'])
    .execute();

  await db.schema
    .createTable('graph_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wallet_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text')
    .addColumn('sealed_client_state', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('graph_subscriptions_drive', ['wallet_id', 'user_id'])
    .execute();
  await db.schema.createIndex('graph_subscriptions_sub').on('graph_subscriptions').column('subscription_id').execute();

  await db.schema.alterTable('wallets').addColumn('provider_account_id', 'text').execute();
  await db.schema.alterTable('runs').addColumn('scope', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runs').dropColumn('scope').execute();
  await db.schema.alterTable('wallets').dropColumn('provider_account_id').execute();
  for (const t of ['graph_subscriptions', 'event_targets', 'provider_events']) await db.schema.dropTable(t).execute();
}
