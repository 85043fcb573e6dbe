import type { Generated } from 'kysely';

/** The event outbox (migration 008); same conventions as CoreTables. */
export interface EventTables {
  events: {
    /** global order; bigserial on PostgreSQL (read back as a string by pg, normalised by EventRepo) */
    seq: Generated<number>;
    account_id: string;
    collection_id: string | null;
    run_id: string | null;
    /** an EventType (domain/events.ts) */
    type: string;
    /** JSON object: the event's data as delivered */
    data: string;
    created_at: string;
  };
  provider_events: {
    id: string;
    /** zoom | microsoft */
    provider: string;
    /** unique per provider: a repeated delivery of the same change maps to the same key */
    dedup_key: string;
    event_type: string;
    /** Zoom: payload.account_id; Graph: subscriptionId */
    route_key: string;
    /** JSON as received, minus download tokens */
    body: string;
    deliveries: Generated<number>;
    received_at: string;
    /** pending | done */
    status: string;
    processed_at: string | null;
    /** what routing did with it (targets queued, or why none) */
    outcome: string | null;
  };
  event_targets: {
    collection_id: string;
    custodian: string;
    first_at: string;
    last_at: string;
  };
  graph_subscriptions: {
    id: string;
    wallet_id: string;
    /** the drive owner's user id */
    user_id: string;
    /** Graph's subscription id; null until created (or after it was found gone) */
    subscription_id: string | null;
    sealed_client_state: string;
    expires_at: string | null;
    last_error: string | null;
    created_at: string;
    updated_at: string;
  };
}
