import type { Generated } from 'kysely';

/**
 * Tables of the sync engine: runs and their errors, items, incremental cursors, blob reference counts and
 * the cross-process token-refresh lock. Same conventions as CoreTables (ISO strings, JSON text, 0/1 ints).
 */
export interface SyncTables {
  runs: {
    id: string;
    collection_id: string;
    account_id: string;
    trigger: string;
    /** queued | running | succeeded | failed | error | cancelled */
    status: string;
    listed: Generated<number>;
    collected: Generated<number>;
    skipped: Generated<number>;
    unchanged: Generated<number>;
    failed: Generated<number>;
    bytes: Generated<number>;
    error_count: Generated<number>;
    created_at: string;
    started_at: string | null;
    finished_at: string | null;
    heartbeat_at: string | null;
    /** `<host>:<pid namespace scope>:<pid>:<nonce>` of the process executing the run (sync/execution/owner.ts) */
    lease_owner: string | null;
    lease_expires_at: string | null;
    /** how many times the run was claimed (> 1 after a crash or a lost lease) */
    attempt: Generated<number>;
    /** JSON `{state}` of the connector's last checkpoint */
    checkpoint: string | null;
    filters_fingerprint: string | null;
    /** JSON cursors yielded by this run; copied to collection_cursors when it succeeds */
    pending_cursors: string | null;
    error: string | null;
    /** the run id this run stamps items it sees with: its own, or that of the failed run whose checkpoint it resumed */
    listing_run_id: string | null;
    /** JSON list of the custodians an `event` run is limited to; null: the whole collection */
    scope: Generated<string | null>;
    /** how many unit jobs the run was fanned out into (unit_jobs); 0: it executes as one job */
    units: Generated<number>;
    /** the collection's sync_filters when the run started: its units and its fan-in read these, not later edits */
    sync_filters: Generated<string | null>;
  };
  run_errors: {
    id: string;
    run_id: string;
    collection_id: string;
    source_id: string | null;
    kind: string | null;
    reason: string;
    at: string;
  };
  items: {
    id: string;
    collection_id: string;
    account_id: string;
    kind: string;
    source_id: string;
    name: string;
    path: string;
    custodian: string | null;
    /** the custodian's name and e-mail when collected (a Zoom channel: its name, no e-mail); migration 022 */
    custodian_name: Generated<string | null>;
    custodian_email: Generated<string | null>;
    size: number | null;
    mime_type: string | null;
    sha256: string | null;
    md5: string | null;
    provider_hash_type: string | null;
    provider_hash_value: string | null;
    /** 1 verified, 0 mismatch, null no provider hash */
    hash_verified: number | null;
    created_datetime: string | null;
    modified_datetime: string | null;
    collected_datetime: string;
    deleted_at_source: string | null;
    /** auto collections: the source deleted it; hidden from lists and search */
    tombstoned_at: string | null;
    /** none (no content) | stored | purged | failed */
    content_state: string;
    /** 1 when this row counts one reference in blob_refs for its sha256 */
    holds_ref: number;
    run_id: string;
    version: string | null;
    metadata: string;
    text: string | null;
    /**
     * JSON list of superseded versions (arch, or while a legal hold applies), oldest first: see PreviousVersion.
     * Entries are only ever appended, or lose their content when a released hold no longer keeps it.
     */
    previous_versions: string | null;
    /** how many entries of previous_versions hold a blob reference */
    version_refs: Generated<number>;
    /** the listing run (runs.listing_run_id) that last saw it at the source, unchanged or not */
    last_seen_run_id: string | null;
    first_seen_at: string;
    updated_at: string;
  };
  collection_cursors: {
    collection_id: string;
    value: string;
    filters_fingerprint: string | null;
    updated_at: string;
  };
  /** Content up to BLOB_DB_MAX_BYTES (migration 034, blobs/db-tier.ts); larger content is in the blob store. */
  small_blobs: { sha256: string; size: number; bytes: Buffer };
  blob_refs: {
    sha256: string;
    refs: number;
    size: number;
    updated_at: string;
  };
  credential_refresh_locks: {
    wallet_id: string;
    owner: string;
    expires_at: string;
  };
}
