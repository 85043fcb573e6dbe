import type { Static } from 'typebox';
import type { ItemRow, PreviousVersion } from '../store/items.ts';
import type { RunRow } from '../store/runs.ts';
import type { RunErrorRow } from '../store/run-errors.ts';
import { runSummary } from './run-summary.ts';
import type { Tally } from '../store/units.ts';
import type { Item, ItemVersion, ProviderBudget, Run } from './view-schemas.ts';
import { providerOf } from '../metrics.ts';
import type { LearnedRateDetail } from '../sync/providers/provider-session.ts';

/** The public Item (a fixed contract: other tooling depends on these names). */
export type ItemView = Static<typeof Item>;

export function itemView(r: ItemRow): ItemView {
  return {
    onna_id: r.id,
    collection_id: r.collection_id,
    kind: r.kind,
    source_id: r.source_id,
    name: r.name,
    path: r.path,
    custodian: r.custodian,
    custodian_name: r.custodian_name,
    custodian_email: r.custodian_email,
    size: r.size === null ? null : Number(r.size),
    mime_type: r.mime_type,
    sha256: r.sha256,
    md5: r.md5,
    provider_hash:
      r.provider_hash_type && r.provider_hash_value
        ? { type: r.provider_hash_type, value: r.provider_hash_value }
        : null,
    hash_verified: r.hash_verified === null ? null : r.hash_verified === 1,
    created_datetime: r.created_datetime,
    modified_datetime: r.modified_datetime,
    collected_datetime: r.collected_datetime,
    deleted_at_source: r.deleted_at_source,
    run_id: r.run_id,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  };
}

/** A superseded version of an item (GET …/items/{item_id}/versions): the item's fields as they were. */
export type ItemVersionView = Static<typeof ItemVersion>;

export function itemVersionView(v: PreviousVersion, n: number): ItemVersionView {
  return {
    version_number: n,
    name: v.name,
    path: v.path,
    custodian: v.custodian,
    size: v.size,
    mime_type: v.mime_type,
    sha256: v.sha256,
    md5: v.md5,
    provider_hash:
      v.provider_hash_type && v.provider_hash_value
        ? { type: v.provider_hash_type, value: v.provider_hash_value }
        : null,
    hash_verified: v.hash_verified === null ? null : v.hash_verified === 1,
    created_datetime: v.created_datetime,
    modified_datetime: v.modified_datetime,
    collected_datetime: v.collected_datetime,
    deleted_at_source: v.deleted_at_source,
    run_id: v.run_id,
    metadata: v.metadata,
    text: v.text,
    superseded_datetime: v.replaced_at,
    superseded_by_run_id: v.replaced_by_run_id,
    content_available: Boolean(v.sha256 && v.holds_ref),
  };
}

export type RunView = Static<typeof Run>;
export type RunErrorView = RunView['errors'][number];

export function runErrorView(e: RunErrorRow): RunErrorView {
  return { source_id: e.source_id, kind: e.kind, reason: e.reason, datetime: e.at };
}

export function runView(run: RunRow, errors: RunErrorRow[], limit: number, tally: Tally | undefined): RunView {
  return {
    ...runSummary(run, tally),
    error: run.error,
    attempt: run.attempt,
    errors: errors.slice(0, limit).map(runErrorView),
    errors_truncated: errors.length > limit || run.error_count > limit,
  };
}

export type ProviderBudgetView = Static<typeof ProviderBudget>;

/** The same figures as the custody_provider_budget_rate gauge. */
export function providerBudgetView(learned: LearnedRateDetail): ProviderBudgetView {
  return {
    provider: providerOf(learned.provider),
    rate_per_second: learned.rate,
    ceiling_per_second: learned.ceiling,
    operator_ceiling_per_second: learned.operatorCeiling,
    learned_at: learned.learnedAt,
  };
}
