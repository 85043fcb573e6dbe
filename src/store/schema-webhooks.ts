/** Outbound webhooks (migration 011); same conventions as CoreTables. */
export interface WebhookTables {
  webhook_endpoints: {
    id: string;
    account_id: string;
    url: string;
    /** JSON array of event types */
    events: string;
    sealed_secret: string;
    created_at: string;
    deleted_at: string | null;
  };
  webhook_deliveries: {
    id: string;
    endpoint_id: string;
    /** bigint: pg reads it back as a string */
    event_seq: number | string;
    event_type: string;
    /** the exact JSON body sent (and signed) on every attempt */
    body: string;
    /** pending | succeeded | failed */
    status: string;
    attempts: number;
    next_attempt_at: string;
    lease_until: string | null;
    last_status_code: number | null;
    last_error: string | null;
    created_at: string;
    updated_at: string;
    delivered_at: string | null;
  };
  webhook_cursor: {
    name: string;
    seq: number | string;
  };
}
