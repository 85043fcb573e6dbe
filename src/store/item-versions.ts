import type { ItemRow } from './items.ts';

/**
 * A superseded version of an item, kept by an `arch` collection or while a legal hold covers the collection: the
 * item's fields as they were (content hashes, names, metadata and text), the run that collected it and when it
 * was replaced. A version with content counts one blob reference while `holds_ref` is true.
 */
export interface PreviousVersion {
  /** null when the version had no content (messages, meetings, folders) */
  sha256: string | null;
  md5: string | null;
  size: number | null;
  provider_hash_type: string | null;
  provider_hash_value: string | null;
  /** 1 verified, 0 mismatch, null no provider hash (as on items) */
  hash_verified: number | null;
  /** the item's content_state then; `purged` once a released hold no longer keeps it */
  content_state: string;
  holds_ref: boolean;
  /**
   * Why the version was kept: `arch` (kept until the collection is deleted, even if its type changes) or `hold`
   * (purged once no hold covers a collection that is not `arch`). Entries written before this was recorded are `arch`,
   * except those migration 006 marked.
   */
  kept_for: 'arch' | 'hold';
  version: string | null;
  name: string | null;
  path: string | null;
  custodian: string | null;
  mime_type: string | null;
  created_datetime: string | null;
  modified_datetime: string | null;
  /** the metadata object as it was (null in entries written before metadata was kept) */
  metadata: Record<string, unknown> | null;
  text: string | null;
  deleted_at_source: string | null;
  run_id: string;
  collected_datetime: string;
  replaced_at: string;
  replaced_by_run_id: string | null;
}

/**
 * The item's superseded versions, oldest first. Entries written before versions kept every field (arch content
 * versions: hashes, version, times) get nulls for the rest, and each of them holds its blob reference.
 */
export function previousVersionsOf(row: Pick<ItemRow, 'previous_versions'>): PreviousVersion[] {
  if (!row.previous_versions) return [];
  return (JSON.parse(row.previous_versions) as Partial<PreviousVersion>[]).map((v) => ({
    sha256: v.sha256 ?? null,
    md5: v.md5 ?? null,
    size: v.size ?? null,
    provider_hash_type: v.provider_hash_type ?? null,
    provider_hash_value: v.provider_hash_value ?? null,
    hash_verified: v.hash_verified ?? null,
    content_state: v.content_state ?? (v.sha256 ? 'stored' : 'none'),
    holds_ref: v.holds_ref ?? Boolean(v.sha256),
    kept_for: v.kept_for ?? 'arch',
    version: v.version ?? null,
    name: v.name ?? null,
    path: v.path ?? null,
    custodian: v.custodian ?? null,
    mime_type: v.mime_type ?? null,
    created_datetime: v.created_datetime ?? null,
    modified_datetime: v.modified_datetime ?? null,
    metadata: v.metadata ?? null,
    text: v.text ?? null,
    deleted_at_source: v.deleted_at_source ?? null,
    run_id: v.run_id ?? '',
    collected_datetime: v.collected_datetime ?? '',
    replaced_at: v.replaced_at ?? '',
    replaced_by_run_id: v.replaced_by_run_id ?? null,
  }));
}

/** The columns that store a version list: the list and how many blob references it holds. */
export function versionColumns(versions: PreviousVersion[]): Pick<ItemRow, 'previous_versions' | 'version_refs'> {
  return {
    previous_versions: versions.length > 0 ? JSON.stringify(versions) : null,
    version_refs: versions.filter((v) => v.holds_ref && v.sha256).length,
  };
}
