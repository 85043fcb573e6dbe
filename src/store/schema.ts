import type { Generated } from 'kysely';
import type { BudgetTables } from './schema-budgets.ts';
import type { EventTables } from './schema-events.ts';
import type { SearchTables } from './schema-search.ts';
import type { ExportTables } from './schema-exports.ts';
import type { SyncTables } from './schema-sync.ts';
import type { UnitTables } from './schema-units.ts';
import type { WebhookTables } from './schema-webhooks.ts';

/**
 * Table types shared by SQLite and PostgreSQL. Times are ISO-8601 UTC strings, JSON is stored as text and
 * booleans as 0/1 integers, so that one repository implementation serves both databases.
 */
export interface CoreTables {
  accounts: { id: string; name: string; created_at: string };
  redirect_allowlist: { account_id: string; url: string; created_at: string };
  api_clients: { id: string; account_id: string; secret_hash: string; created_at: string; revoked_at: string | null };
  service_tokens: {
    token_hash: string;
    kind: 'access' | 'refresh';
    account_id: string;
    client_id: string;
    family_id: string;
    expires_at: string;
    created_at: string;
    /** refresh tokens: set when rotated; presenting it again is reuse and revokes the family */
    used_at: string | null;
    revoked_at: string | null;
  };
  workspaces: {
    id: string;
    account_id: string;
    name: string;
    description: string;
    created_at: string;
    updated_at: string;
    /** set when a deletion starts: the workspace is gone for every reader from then on */
    deleting_at: Generated<string | null>;
  };
  wallets: {
    id: string;
    account_id: string;
    name: string;
    credential_type_name: string;
    config_type: string;
    /** AES-256-GCM sealed JSON grant written by pairing; never leaves the process unsealed */
    sealed_grant: string | null;
    /** bumped on every grant write: compare-and-swap for single-flight token refresh */
    grant_version: Generated<number>;
    paired_at: string | null;
    created_at: string;
    /** the provider account the grant belongs to (Zoom account id): routes webhooks; null until known */
    provider_account_id: Generated<string | null>;
  };
  collections: {
    id: string;
    account_id: string;
    workspace_id: string;
    wallet_id: string;
    name: string;
    type: string;
    sync_status: string;
    status_reason: string | null;
    type_sync: string;
    sync_filters: string | null;
    filters_updated_at: string | null;
    next_sync_at: string | null;
    /** a `sync_status: pending` sent while a run was active: a follow-up run is queued when that run ends */
    rerun_requested_at: Generated<string | null>;
    /** set when a deletion starts (sync/deletion/deletion.ts): the collection is gone for every reader from then on */
    deleting_at: Generated<string | null>;
    created_at: string;
    updated_at: string;
  };
  oauth_states: {
    /** sha256 of the nonce inside the signed state: single use */
    nonce_hash: string;
    account_id: string;
    type: string;
    expires_at: string;
    used_at: string | null;
  };
  pairings: {
    code_hash: string;
    account_id: string;
    type: string;
    sealed_grant: string;
    expires_at: string;
    used_at: string | null;
    created_at: string;
  };
}

export interface DB
  extends CoreTables, SyncTables, SearchTables, EventTables, UnitTables, WebhookTables, BudgetTables, ExportTables {}
