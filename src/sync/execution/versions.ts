import type { ItemRow, PreviousVersion } from '../../store/items.ts';

/** The descriptive columns an incoming item may change (upsert and touch write these). */
export interface Described {
  name?: string;
  path?: string;
  custodian?: string | null;
  mime_type?: string | null;
  created_datetime?: string | null;
  modified_datetime?: string | null;
  metadata?: string;
  text?: string | null;
}

const DESCRIBED: (keyof Described)[] = [
  'name',
  'path',
  'custodian',
  'mime_type',
  'created_datetime',
  'modified_datetime',
  'metadata',
  'text',
];

/**
 * Whether writing `next` (and content `nextSha`, when given) over `row` loses something a person could have seen:
 * other content, or other names, metadata, text or source times. A changed version string alone loses nothing.
 */
export function supersedes(row: ItemRow, next: Described, nextSha?: string | null): boolean {
  // A placeholder for content that never arrived describes nothing that was collected.
  if (row.content_state === 'failed' && !row.sha256) return false;
  if (nextSha !== undefined && (row.sha256 ?? null) !== nextSha) return true;
  return DESCRIBED.some((k) => next[k] !== undefined && next[k] !== row[k]);
}

/** Whether the row holds a blob reference for its content. */
export function holdsContent(row: Pick<ItemRow, 'holds_ref' | 'sha256'>): boolean {
  return Boolean(row.holds_ref && row.sha256);
}

/**
 * The row as it was, for its item's previous_versions; `holdsRef`: whether the entry keeps a blob reference;
 * `keptFor`: `arch` when the collection archives versions, else `hold`.
 */
export function supersededVersion(
  row: ItemRow,
  holdsRef: boolean,
  replacedAt: string,
  replacedByRunId: string,
  keptFor: PreviousVersion['kept_for'],
): PreviousVersion {
  return {
    sha256: row.sha256,
    md5: row.md5,
    size: row.size === null ? null : Number(row.size),
    provider_hash_type: row.provider_hash_type,
    provider_hash_value: row.provider_hash_value,
    hash_verified: row.hash_verified,
    content_state: row.content_state,
    holds_ref: holdsRef && row.sha256 !== null,
    kept_for: keptFor,
    version: row.version,
    name: row.name,
    path: row.path,
    custodian: row.custodian,
    mime_type: row.mime_type,
    created_datetime: row.created_datetime,
    modified_datetime: row.modified_datetime,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    text: row.text,
    deleted_at_source: row.deleted_at_source,
    run_id: row.run_id,
    collected_datetime: row.collected_datetime,
    replaced_at: replacedAt,
    replaced_by_run_id: replacedByRunId,
  };
}
