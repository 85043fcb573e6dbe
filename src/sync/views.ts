import type { ItemRow } from '../store/items.ts';
import type { RunErrorRow, RunRow } from '../store/runs.ts';
import { runSummary } from './engine.ts';
import type { RunSummary } from './engine-api.ts';

/** The public Item (a fixed contract: other tooling depends on these names). */
export interface ItemView {
  onna_id: string;
  collection_id: string;
  kind: string;
  source_id: string;
  name: string;
  path: string;
  custodian: string | null;
  size: number | null;
  mime_type: string | null;
  sha256: string | null;
  md5: string | null;
  provider_hash: { type: string; value: string } | null;
  hash_verified: boolean | null;
  created_datetime: string | null;
  modified_datetime: string | null;
  collected_datetime: string;
  deleted_at_source: string | null;
  run_id: string;
  metadata: Record<string, unknown>;
}

export function itemView(r: ItemRow): ItemView {
  return {
    onna_id: r.id,
    collection_id: r.collection_id,
    kind: r.kind,
    source_id: r.source_id,
    name: r.name,
    path: r.path,
    custodian: r.custodian,
    size: r.size === null ? null : Number(r.size),
    mime_type: r.mime_type,
    sha256: r.sha256,
    md5: r.md5,
    provider_hash: r.provider_hash_type && r.provider_hash_value ? { type: r.provider_hash_type, value: r.provider_hash_value } : null,
    hash_verified: r.hash_verified === null ? null : r.hash_verified === 1,
    created_datetime: r.created_datetime,
    modified_datetime: r.modified_datetime,
    collected_datetime: r.collected_datetime,
    deleted_at_source: r.deleted_at_source,
    run_id: r.run_id,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  };
}

export interface RunErrorView {
  source_id: string | null;
  kind: string | null;
  reason: string;
  datetime: string;
}

export interface RunView extends RunSummary {
  error: string | null;
  attempt: number;
  errors: RunErrorView[];
  errors_truncated: boolean;
}

export function runErrorView(e: RunErrorRow): RunErrorView {
  return { source_id: e.source_id, kind: e.kind, reason: e.reason, datetime: e.at };
}

export function runView(run: RunRow, errors: RunErrorRow[], limit: number): RunView {
  return {
    ...runSummary(run),
    error: run.error,
    attempt: run.attempt,
    errors: errors.slice(0, limit).map(runErrorView),
    errors_truncated: errors.length > limit || run.error_count > limit,
  };
}
