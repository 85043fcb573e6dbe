import type { Generated } from 'kysely';

/** The unit model's tables (migrations 010 and 016); same conventions as CoreTables. */
export interface UnitTables {
  /** One job per unit of a fanned-out run (sync/execution/unit-job.ts): leased by the worker executing it. */
  unit_jobs: {
    run_id: string;
    unit_key: string;
    collection_id: string;
    /** custodian | channel */
    kind: string;
    email: string | null;
    /** queued | running | done | failed | cancelled */
    status: string;
    lease_owner: string | null;
    lease_expires_at: string | null;
    heartbeat_at: string | null;
    /** when the unit last made progress (written with the heartbeat); migration 018 */
    last_progress_at: string | null;
    attempt: Generated<number>;
    /** JSON `{state}` of the connector's last checkpoint in this unit */
    checkpoint: string | null;
    /** JSON cursors this unit's collect ended with (merged into the collection's at fan-in) */
    pending_cursors: string | null;
    /** why the unit failed as a whole */
    error: string | null;
    /** 1: the unit failed because a person must act (re-pair...): the run ends `error` */
    needs_action: Generated<number>;
    created_at: string;
    finished_at: string | null;
    /** JSON the plan handed this unit (UnitSpec.data); null: none */
    plan_data: string | null;
    /** what this unit has added to the run's counters so far */
    listed: Generated<number>;
    collected: Generated<number>;
    skipped: Generated<number>;
    unchanged: Generated<number>;
    failed: Generated<number>;
    bytes: Generated<number>;
    error_count: Generated<number>;
  };
  /** A piece two units could reach (a Zoom channel) belongs to the first unit that claims it in the run. */
  unit_claims: {
    run_id: string;
    claim_key: string;
    unit_key: string;
  };
  run_units: {
    run_id: string;
    /** provider user id of a custodian, or a Zoom channel id */
    unit_key: string;
    collection_id: string;
    /** custodian | channel */
    kind: string;
    email: string | null;
    /** the custodian's (or channel's) name as the provider gave it during the run; migration 022 */
    name: Generated<string | null>;
    /** pending | running | done | failed (custodian-level stop) | not_reached */
    status: string;
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
    /** failed | not_present | not_reached | provider_limit */
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
