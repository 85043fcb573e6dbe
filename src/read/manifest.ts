import type { CollectionRow } from '../store/collections.ts';
import type { Database } from '../store/db.ts';
import { previousVersionsOf, type ItemRow, type PreviousVersion } from '../store/items.ts';
import { countersOf, RunRepo } from '../store/runs.ts';
import { RunErrorRepo, type RunErrorRow } from '../store/run-errors.ts';
import { UnitRepo } from '../store/units.ts';
import { withLiveCounters } from '../store/run-counters.ts';
import { buildReconciliation } from './reconciliation-report.ts';
import { runCounters, tallyOf, type Counts } from '../sync/runs/tally.ts';
import { filtersFingerprint } from '../provider/fingerprint.ts';
import { itemCounts, type ItemCounts } from './manifest-counts.ts';
import { renderedItems } from './manifest-rows.ts';

/**
 * The chain-of-custody manifest: one row per item ever collected (what, whose, where from, the hashes and
 * whether the provider's hash verified, source and collection times, the run that collected it) and one per
 * superseded version of it, plus a summary (filters applied, counts, failures and exceptions), after what
 * Microsoft Purview's export summary and Relativity Collect's collection report give a legal team. Streamed:
 * the item count is unbounded.
 */
export const MANIFEST_VERSION = 1;

export const ITEM_COLUMNS = [
  'onna_id',
  'kind',
  'source_id',
  'path',
  'name',
  'custodian',
  'size',
  'mime_type',
  'sha256',
  'md5',
  'provider_hash_type',
  'provider_hash_value',
  'hash_verified',
  'created_datetime',
  'modified_datetime',
  'collected_datetime',
  'deleted_at_source',
  'tombstoned_datetime',
  'run_id',
] as const;

/**
 * Superseded versions (kept by `arch`, or while a legal hold applies): in the JSON, `previous_versions` of each
 * item; in the CSV, `version` rows right after their item's row. `version_number` counts from 1 (the oldest);
 * an item's own row carries the number of its current version.
 */
export const VERSION_COLUMNS = [
  'version_number',
  'superseded_datetime',
  'superseded_by_run_id',
  'content_retained',
] as const;

// Version columns come after `detail`, so that the columns existing readers know keep their positions.
export const CSV_COLUMNS = ['record_type', ...ITEM_COLUMNS, 'detail', ...VERSION_COLUMNS] as const;

type Cell = string | number | boolean | null;
type ManifestItem = Record<(typeof ITEM_COLUMNS)[number], Cell>;
type VersionFields = Omit<ManifestItem, 'onna_id' | 'kind' | 'source_id' | 'tombstoned_datetime'> &
  Record<(typeof VERSION_COLUMNS)[number], Cell>;

/** A superseded version's fields as they were, and its place in the item's history. */
function versionFields(v: PreviousVersion, n: number): VersionFields {
  return {
    path: v.path,
    name: v.name,
    custodian: v.custodian,
    size: v.size,
    mime_type: v.mime_type,
    sha256: v.sha256,
    md5: v.md5,
    provider_hash_type: v.provider_hash_type,
    provider_hash_value: v.provider_hash_value,
    hash_verified: v.hash_verified === null ? null : v.hash_verified === 1,
    created_datetime: v.created_datetime,
    modified_datetime: v.modified_datetime,
    collected_datetime: v.collected_datetime,
    deleted_at_source: v.deleted_at_source,
    run_id: v.run_id,
    version_number: n,
    superseded_datetime: v.replaced_at,
    superseded_by_run_id: v.replaced_by_run_id,
    content_retained: v.sha256 ? v.holds_ref : null,
  };
}

function manifestItem(r: ItemRow): ManifestItem {
  return {
    onna_id: r.id,
    kind: r.kind,
    source_id: r.source_id,
    path: r.path,
    name: r.name,
    custodian: r.custodian,
    size: r.size === null ? null : Number(r.size),
    mime_type: r.mime_type,
    sha256: r.sha256,
    md5: r.md5,
    provider_hash_type: r.provider_hash_type,
    provider_hash_value: r.provider_hash_value,
    hash_verified: r.hash_verified === null ? null : r.hash_verified === 1,
    created_datetime: r.created_datetime,
    modified_datetime: r.modified_datetime,
    collected_datetime: r.collected_datetime,
    deleted_at_source: r.deleted_at_source,
    tombstoned_datetime: r.tombstoned_at,
    run_id: r.run_id,
  };
}

export interface ManifestSummary {
  manifest_version: number;
  generated_datetime: string;
  collection: {
    onna_id: string;
    name: string;
    type: string;
    type_sync: string;
    onna_parent_id: string;
    credential_id: string;
    sync_status: string;
  };
  filters: unknown;
  filters_fingerprint: string | null;
  counts: ItemCounts & { exceptions: number };
  runs: {
    run_id: string;
    trigger: string;
    status: string;
    started_datetime: string | null;
    finished_datetime: string | null;
    counters: Record<string, number>;
    error: string | null;
    /** the run's reconciliation totals (GET …/runs/{run_id}/reconciliation has them per custodian) */
    reconciliation: { balanced: boolean; totals: Counts };
  }[];
  /** Pieces that failed on every one of their attempts and are no longer retried, with the last reason. */
  permanently_failed: {
    custodian: string;
    kind: string;
    source_id: string;
    name: string;
    attempts: number;
    reason: string;
  }[];
}

async function summarize(db: Database, c: CollectionRow, now: Date): Promise<ManifestSummary> {
  const { superseded_versions, superseded_versions_retained, ...items } = await itemCounts(db, c.id);
  // the order of the fields as they have always been written
  const counts: ManifestSummary['counts'] = {
    ...items,
    exceptions: 0,
    superseded_versions,
    superseded_versions_retained,
  };
  const runRepo = new RunRepo(db);
  const units = new UnitRepo(db);
  counts.exceptions = await new RunErrorRepo(db).countOfCollection(c.id);
  // a running fanned-out run's row holds only its ended units' counters (store/unit-jobs.ts)
  const runs = await withLiveCounters(db, await runRepo.allOfCollection(c.id));
  const unitRows = await units.ofCollection(c.id);
  const permanent = await units.permanentFailures(c.id);
  const filters = c.sync_filters ? (JSON.parse(c.sync_filters) as unknown) : null;
  return {
    manifest_version: MANIFEST_VERSION,
    generated_datetime: now.toISOString(),
    collection: {
      onna_id: c.id,
      name: c.name,
      type: c.type,
      type_sync: c.type_sync,
      onna_parent_id: c.workspace_id,
      credential_id: c.wallet_id,
      sync_status: c.sync_status,
    },
    filters,
    filters_fingerprint: filters === null ? null : filtersFingerprint(filters),
    counts,
    runs: runs.map((r) => {
      const { error_count, ...own } = countersOf(r);
      const counters = runCounters(own, tallyOf(unitRows.filter((u) => u.run_id === r.id)));
      return {
        run_id: r.id,
        trigger: r.trigger,
        status: r.status,
        started_datetime: r.started_at,
        finished_datetime: r.finished_at,
        counters: { ...counters, errors: error_count },
        error: r.error,
        reconciliation: (({ balanced, totals }) => ({ balanced, totals }))(
          buildReconciliation(
            r,
            unitRows.filter((u) => u.run_id === r.id),
            [],
          ),
        ),
      };
    }),
    permanently_failed: permanent.map((p) => ({
      custodian: p.unit_key,
      kind: p.kind,
      source_id: p.source_id,
      name: p.name,
      attempts: p.attempts,
      reason: p.reason,
    })),
  };
}

async function* exceptions(db: Database, collectionId: string): AsyncGenerator<RunErrorRow> {
  const errors = new RunErrorRepo(db);
  for (let offset = 0; ; offset += 500) {
    const rows = await errors.ofCollection(collectionId, offset, 500);
    yield* rows;
    if (rows.length < 500) return;
  }
}

/** Rows in chunks of about this many characters: one write per chunk, not one per row. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The first part (the summary) on its own, so that it is sent before any item is read; then the rest joined into
 * chunks of about CHUNK_CHARS, each one write to the response and one turn of the stream's machinery (per-row writes
 * cost a promise, a stream buffer entry and a socket write per item).
 */
async function* chunked(parts: AsyncGenerator<string>): AsyncGenerator<string> {
  const head = await parts.next();
  if (head.done) return;
  yield head.value;
  let buf: string[] = [];
  let size = 0;
  for await (const part of parts) {
    buf.push(part);
    size += part.length;
    if (size >= CHUNK_CHARS) {
      yield buf.join('');
      buf = [];
      size = 0;
    }
  }
  if (buf.length) yield buf.join('');
}

/** `{ ...summary, items: [...], exceptions: [...] }`, streamed. */
export function manifestJson(db: Database, c: CollectionRow, now: Date): AsyncGenerator<string> {
  return chunked(jsonParts(db, c, now));
}

async function* jsonParts(db: Database, c: CollectionRow, now: Date): AsyncGenerator<string> {
  const summary = await summarize(db, c, now);
  yield `${JSON.stringify(summary).slice(0, -1)},"items":[`;
  let first = true;
  yield* renderedItems(db, c.id, (r) => {
    const versions = previousVersionsOf(r);
    const entry = {
      ...manifestItem(r),
      version_number: versions.length + 1,
      previous_versions: versions.map((v, i) => versionFields(v, i + 1)),
    };
    const text = `${first ? '' : ','}${JSON.stringify(entry)}`;
    first = false;
    return text;
  });
  yield '],"exceptions":[';
  first = true;
  for await (const e of exceptions(db, c.id)) {
    yield `${first ? '' : ','}${JSON.stringify({ run_id: e.run_id, source_id: e.source_id, kind: e.kind, reason: e.reason, datetime: e.at })}`;
    first = false;
  }
  yield ']}\n';
}

/**
 * One rectangular CSV (RFC 4180): a `summary` row whose `detail` holds the summary as JSON, one `item` row
 * per item, then one `exception` row per recorded failure (its `collected_datetime` is when it was recorded).
 */
export function manifestCsv(db: Database, c: CollectionRow, now: Date): AsyncGenerator<string> {
  return chunked(csvParts(db, c, now));
}

async function* csvParts(db: Database, c: CollectionRow, now: Date): AsyncGenerator<string> {
  const summary = await summarize(db, c, now);
  yield `${CSV_COLUMNS.join(',')}\r\n${csvRow({ record_type: 'summary', detail: JSON.stringify(summary) })}`;
  yield* renderedItems(db, c.id, (r) => {
    const versions = previousVersionsOf(r);
    let text = csvRow({ record_type: 'item', ...manifestItem(r), version_number: versions.length + 1 });
    for (const [i, v] of versions.entries()) {
      text += csvRow({
        record_type: 'version',
        onna_id: r.id,
        kind: r.kind,
        source_id: r.source_id,
        ...versionFields(v, i + 1),
      });
    }
    return text;
  });
  for await (const e of exceptions(db, c.id)) {
    yield csvRow({
      record_type: 'exception',
      kind: e.kind,
      source_id: e.source_id,
      run_id: e.run_id,
      collected_datetime: e.at,
      detail: e.reason,
    });
  }
}

function csvRow(values: Partial<Record<(typeof CSV_COLUMNS)[number], Cell>>): string {
  return `${CSV_COLUMNS.map((col) => csvCell(values[col])).join(',')}\r\n`;
}

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  // A spreadsheet would run a cell starting with these as a formula (OWASP CSV injection); the JSON form is exact.
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
