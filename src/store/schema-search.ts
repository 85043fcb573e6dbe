import type { Generated } from 'kysely';

/**
 * Tables of legal holds and the audit log (same conventions as CoreTables). The search index tables
 * (search_docs, and search_fts on SQLite) differ per database and are reached only through src/search/.
 */
export interface SearchTables {
  legal_holds: {
    id: string;
    account_id: string;
    name: string;
    description: string;
    /** covers every collection of this workspace, present and future */
    workspace_id: string | null;
    created_at: string;
    created_by_client: string;
    /** set by DELETE (release); a released hold covers nothing */
    released_at: string | null;
    released_by_client: string | null;
  };
  legal_hold_collections: {
    hold_id: string;
    collection_id: string;
  };
  audit_log: {
    seq: Generated<number>;
    id: string;
    at: string;
    account_id: string | null;
    client_id: string | null;
    action: string;
    target_id: string | null;
    /** success | failure for API calls; the run's status for run events */
    outcome: string;
    /** HTTP status of an API call; null for run events */
    status_code: number | null;
    correlation_id: string | null;
    /** JSON object of non-secret facts (body field names, run id, trigger) */
    detail: string | null;
    /** issue 24: `collection:<id>` or `account:<id>`; the entry's position in it from 1; the chain links */
    chain_id: string | null;
    chain_seq: number | null;
    prev_hash: string | null;
    hash: string | null;
    collection_id: string | null;
  };
  /** Each audit chain's head: the row an append locks (appends to one chain are serialised). */
  audit_chains: { chain_id: string; seq: number; hash: string };
}
