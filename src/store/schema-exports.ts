/** Production exports and signing keys (migration 021); same conventions as CoreTables. */
export interface ExportTables {
  exports: {
    id: string;
    account_id: string;
    collection_id: string;
    /** queued | running | succeeded | failed | cancelled */
    status: string;
    /** JSON: the request body as normalised (items, chat_format, dedupe) */
    options: string;
    created_at: string;
    started_at: string | null;
    finished_at: string | null;
    lease_owner: string | null;
    lease_expires_at: string | null;
    attempt: number;
    /** JSON counts {documents, natives, texts, families, duplicates_suppressed} */
    counts: string | null;
    bytes: number | null;
    /** the package's SHA-256: its blob key and ETag */
    sha256: string | null;
    error: string | null;
    /** the collection's audit head the package's manifest signed */
    audit_seq: number | null;
    audit_hash: string | null;
  };
  signing_keys: {
    kid: string;
    /** public JWK JSON (kty OKP, crv Ed25519, x) */
    public_jwk: string;
    /** the private JWK, sealed (domain/seal.ts) */
    private_sealed: string;
    created_at: string;
    retired_at: string | null;
  };
}
