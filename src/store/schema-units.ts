/** The unit model's tables (migration 010); same conventions as CoreTables. */
export interface UnitTables {
  run_units: {
    run_id: string;
    /** provider user id of a custodian, or a Zoom channel id */
    unit_key: string;
    collection_id: string;
    /** custodian | channel */
    kind: string;
    email: string | null;
    /** pending | running | done | failed (custodian-level stop) | not_reached */
    status: string;
    /** JSON: the unit's own resume point, when the connector keeps one per unit */
    checkpoint: string | null;
    updated_at: string;
    listed: number;
    collected: number;
    unchanged: number;
    excluded: number;
    not_present: number;
    failed: number;
    /** seen twice by one run (resumed after a crash): counted in `listed` once more, in no outcome */
    skipped: number;
    bytes: number;
  };
  run_exceptions: {
    id: string;
    run_id: string;
    collection_id: string;
    unit_key: string;
    source_id: string;
    kind: string;
    name: string;
    /** failed | not_present | not_reached */
    outcome: string;
    reason: string;
    at: string;
  };
  unit_retries: {
    collection_id: string;
    unit_key: string;
    kind: string;
    source_id: string;
    name: string;
    /** JSON the connector needs to fetch the piece again (CollectEvent `error.retry`) */
    piece: string;
    attempts: number;
    reason: string;
    /** 1 once the bounded number of attempts is spent: reported, no longer retried */
    permanent: number;
    updated_at: string;
  };
}
