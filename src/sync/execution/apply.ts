import type { Transaction } from 'kysely';
import type { ItemInput } from '../../connectors/types.ts';
import { indexItem } from '../../search/index.ts';
import { BlobRefRepo } from '../../store/blob-refs.ts';
import { newId } from '../../store/ids.ts';
import { ItemRepo, previousVersionsOf, versionColumns, type ItemPatch, type ItemRow } from '../../store/items.ts';
import type { DB } from '../../store/schema.ts';
import type { UnitState } from '../../store/units.ts';
import { keyOf, PageRows } from './page-rows.ts';
import { holdsContent, supersededVersion, supersedes } from './versions.ts';

export interface StoredContent {
  sha256: string;
  md5: string;
  size: number;
  providerHash: { type: string; value: string } | null;
  verified: boolean | null;
}

/** What an item event resolved to; applied in the next flush transaction. */
export type ItemOp =
  /** contentText: the searchable text of the stored content (extracted before the transaction) */
  | { type: 'upsert'; input: ItemInput; content: StoredContent | 'none' | 'failed'; contentText?: string | null }
  | { type: 'touch'; id: string; patch: ItemPatch }
  /** seen unchanged at the source by this run: only its listing mark moves */
  | { type: 'seen'; id: string }
  /** at the source but outside the selection: the stored row, if any, gets the listing mark and nothing else */
  | { type: 'present'; kind: string; sourceId: string }
  /** auto: deleted at the source; its content is purged unless a hold applies (decided in the transaction) */
  | { type: 'tombstone'; kind: string; sourceId: string }
  | { type: 'mark_deleted'; kind: string; sourceId: string };

export interface ApplyScope {
  collectionId: string;
  accountId: string;
  runId: string;
  /** what items seen in this run are stamped with (last_seen_run_id) */
  listingRunId: string;
  /** the collection's type_sync: `arch` keeps superseded versions, `auto` tombstones */
  typeSync: string;
  /**
   * Whether a legal hold covers the collection, asked inside this transaction (HoldRepo.isHeldLocked
   * in store/holds.ts) and at most once: superseded versions are kept when `arch` or held, and a held
   * tombstone keeps its content.
   */
  held(): Promise<boolean>;
  at: string;
}

export interface ApplyResult {
  /** blobs whose reference count this transaction lowered: collect them after commit */
  released: string[];
  /** blobs this transaction referenced: they must exist after commit */
  acquired: string[];
}

/** Applies item operations inside the caller's transaction, keeping blob reference counts exact. */
export async function applyOps(trx: Transaction<DB>, scope: ApplyScope, ops: ItemOp[]): Promise<ApplyResult> {
  const items = new ItemRepo(trx);
  const refs = new BlobRefRepo(trx);
  const result: ApplyResult = { released: [], acquired: [] };
  const upserts = ops.flatMap((op) => (op.type === 'upsert' ? [op.input] : []));
  const ctx: Ctx = {
    trx,
    items,
    refs,
    scope,
    result,
    keepVersions: async () => scope.typeSync === 'arch' || (await scope.held()),
    // The writer buffers at most one upsert, touch or deletion per source key in a flush (item-writer.ts
    // pendingKeys): the rows read here are what each upsert would have read on its own.
    existing: await PageRows.existing(items, scope.collectionId, upserts),
    page: new PageRows(trx, scope.at),
  };
  const seen: string[] = [];
  const present: Array<{ kind: string; sourceId: string }> = [];
  for (const op of ops) {
    if (op.type !== 'upsert' && op.type !== 'seen' && op.type !== 'present') await ctx.page.write();
    switch (op.type) {
      case 'seen':
        seen.push(op.id);
        break;
      case 'present':
        present.push(op);
        break;
      case 'upsert':
        await upsert(ctx, op);
        break;
      case 'touch':
        await touch(ctx, op);
        break;
      case 'tombstone': {
        const row = await items.findByKey(scope.collectionId, op.kind, op.sourceId, { forUpdate: true });
        if (!row || row.tombstoned_at) break;
        const patch: ItemPatch = {
          tombstoned_at: scope.at,
          deleted_at_source: row.deleted_at_source ?? scope.at,
          updated_at: scope.at,
        };
        if (holdsContent(row) && !(await scope.held())) {
          await refs.release(row.sha256!, scope.at);
          result.released.push(row.sha256!);
          Object.assign(patch, { holds_ref: 0, content_state: 'purged' });
        }
        await items.update(row.id, patch);
        // Purged content is no longer searchable, even with include_deleted.
        if (patch.content_state === 'purged') await indexItem(trx, row, null);
        break;
      }
      case 'mark_deleted': {
        const row = await items.findByKey(scope.collectionId, op.kind, op.sourceId);
        if (row && !row.deleted_at_source)
          await items.update(row.id, { deleted_at_source: scope.at, updated_at: scope.at });
        break;
      }
      default: {
        const never: never = op;
        throw new Error(`unknown item op ${JSON.stringify(never)}`);
      }
    }
  }
  await ctx.page.write();
  // Marks commute with every other operation: one statement per chunk instead of one per unchanged item.
  await items.markSeen(seen, scope.listingRunId);
  await items.markPresent(scope.collectionId, present, scope.listingRunId);
  return result;
}

interface Ctx {
  trx: Transaction<DB>;
  items: ItemRepo;
  refs: BlobRefRepo;
  scope: ApplyScope;
  result: ApplyResult;
  keepVersions(): Promise<boolean>;
  /** the stored rows of the page's upserts, by keyOf, read at its start */
  existing: Map<string, ItemRow>;
  page: PageRows;
}

/**
 * The row's current state becomes a superseded version: it keeps the row's blob reference when `takeRef`
 * (the row moves on to other content), else takes one of its own (the row keeps the same content).
 */
async function keepVersion(
  ctx: Ctx,
  row: ItemRow,
  takeRef: boolean,
): Promise<Pick<ItemRow, 'previous_versions' | 'version_refs'>> {
  const { scope } = ctx;
  const withContent = holdsContent(row);
  if (withContent && !takeRef) {
    await ctx.refs.acquire(row.sha256!, Number(row.size ?? 0), scope.at);
    ctx.result.acquired.push(row.sha256!);
  }
  return versionColumns([
    ...previousVersionsOf(row),
    supersededVersion(row, withContent, scope.at, scope.runId, scope.typeSync === 'arch' ? 'arch' : 'hold'),
  ]);
}

/** Descriptive fields changed at the source without a new version (a rename, a move, edited metadata). */
async function touch(ctx: Ctx, op: Extract<ItemOp, { type: 'touch' }>): Promise<void> {
  const { trx, items, scope } = ctx;
  const patch: ItemPatch = { ...op.patch, last_seen_run_id: scope.listingRunId, updated_at: scope.at };
  if (await ctx.keepVersions()) {
    const row = await items.getForUpdate(op.id);
    if (row && supersedes(row, op.patch)) Object.assign(patch, await keepVersion(ctx, row, false));
  }
  await items.update(op.id, patch);
  const row = await items.getById(op.id);
  if (row) await indexItem(trx, row);
}

/**
 * Provider times in one form (`toISOString()`: UTC, milliseconds, `Z`), so that stored values compare as strings
 * exactly (search date filters, manifests): Zoom says `2024-05-01T10:00:00Z`, Graph may add fractions or an
 * offset. A time without an offset is taken as UTC; one that does not parse is dropped (metadata keeps the raw value).
 */
export function isoTimestamp(value: string | null | undefined): string | null {
  if (!value) return null;
  const text = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value) ? `${value}Z` : value;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function describedFields(input: ItemInput, at: string) {
  return {
    name: input.name,
    path: input.path,
    custodian: input.custodian,
    // undefined (not given) leaves a stored name as it is
    custodian_name: input.custodianName ?? undefined,
    custodian_email: input.custodianEmail ?? undefined,
    mime_type: input.mimeType ?? null,
    created_datetime: isoTimestamp(input.createdAt),
    modified_datetime: isoTimestamp(input.modifiedAt),
    metadata: JSON.stringify(input.metadata ?? {}),
    text: input.text ?? null,
    updated_at: at,
  };
}

async function upsert(ctx: Ctx, op: Extract<ItemOp, { type: 'upsert' }>): Promise<void> {
  const { trx, items, refs, scope, result } = ctx;
  const { input, content } = op;
  const existing = ctx.existing.get(keyOf(input.kind, input.sourceId));
  const fields = {
    ...describedFields(input, scope.at),
    tombstoned_at: null,
    deleted_at_source: null,
    last_seen_run_id: scope.listingRunId,
  };

  if (content === 'failed') {
    if (existing && (await ctx.keepVersions())) {
      // The row keeps describing the content it holds, so that the run that gets the new content supersedes a
      // coherent version; the failure is in the run's errors.
      await items.update(existing.id, {
        tombstoned_at: null,
        deleted_at_source: null,
        last_seen_run_id: scope.listingRunId,
        updated_at: scope.at,
      });
      return;
    }
    // Never collected: no item until its content is (it is on its unit's retry list and in the reconciliation),
    // so the items API lists exactly what each run collected.
    if (!existing) return;
    // Keep whatever content and version were stored before, so the next run tries the download again.
    await items.update(existing.id, { ...fields, size: existing.size ?? input.size ?? null });
    await indexItem(trx, indexable(existing, input, fields));
    return;
  }

  const contentFields =
    content === 'none'
      ? {
          size: input.size ?? null,
          sha256: null,
          md5: null,
          provider_hash_type: null,
          provider_hash_value: null,
          hash_verified: null,
          content_state: 'none',
          holds_ref: 0,
        }
      : {
          size: content.size,
          sha256: content.sha256,
          md5: content.md5,
          provider_hash_type: content.providerHash?.type ?? null,
          provider_hash_value: content.providerHash?.value ?? null,
          hash_verified: content.verified === null ? null : content.verified ? 1 : 0,
          content_state: 'stored',
          holds_ref: 1,
        };
  const newSha = content === 'none' ? null : content.sha256;
  const sameContent = Boolean(existing && holdsContent(existing) && existing.sha256 === newSha);
  if (newSha && !sameContent) {
    ctx.page.acquire(newSha, (content as StoredContent).size);
    result.acquired.push(newSha);
  }
  let versions: Pick<ItemRow, 'previous_versions' | 'version_refs'> | undefined;
  if (existing && supersedes(existing, fields, newSha) && (await ctx.keepVersions())) {
    versions = await keepVersion(ctx, existing, !sameContent);
  } else if (existing && holdsContent(existing) && !sameContent) {
    await refs.release(existing.sha256!, scope.at);
    result.released.push(existing.sha256!);
  }
  const collected = sameContent ? {} : { run_id: scope.runId, collected_datetime: scope.at };
  if (!existing) {
    // one shape for every new row of the page (a multi-row insert): names not given are null
    const named = { custodian_name: input.custodianName ?? null, custodian_email: input.custodianEmail ?? null };
    const row = { ...newRow(scope, input), ...fields, ...named, ...contentFields, version: input.version ?? null };
    ctx.page.insert(row, content === 'none' ? null : (op.contentText ?? null));
    return;
  }
  const id = existing.id;
  await items.update(id, { ...fields, ...contentFields, ...collected, version: input.version ?? null, ...versions });
  const contentText =
    content === 'none' ? null : sameContent && op.contentText === undefined ? undefined : (op.contentText ?? null);
  await indexItem(trx, indexable(existing, input, fields), contentText);
}

/**
 * The updated row as the index sees it: an e-mail not given now is the one the row keeps, so that the document's
 * custodian tokens (which the search custodians filter matches) stay those of the row.
 */
function indexable(existing: ItemRow, input: ItemInput, fields: ReturnType<typeof describedFields>) {
  return {
    id: existing.id,
    collection_id: existing.collection_id,
    kind: input.kind,
    ...fields,
    custodian_email: fields.custodian_email ?? existing.custodian_email,
  };
}

function newRow(scope: ApplyScope, input: ItemInput) {
  return {
    id: newId('itm'),
    collection_id: scope.collectionId,
    account_id: scope.accountId,
    kind: input.kind,
    source_id: input.sourceId,
    size: input.size ?? null,
    sha256: null,
    md5: null,
    provider_hash_type: null,
    provider_hash_value: null,
    hash_verified: null,
    holds_ref: 0,
    run_id: scope.runId,
    collected_datetime: scope.at,
    first_seen_at: scope.at,
    previous_versions: null,
  };
}

/** Descriptive fields that changed without a content change (a rename, a move); undefined when none did. */
export function changedFields(row: ItemRow, input: ItemInput): ItemPatch | undefined {
  const next = {
    name: input.name,
    path: input.path,
    custodian: input.custodian,
    metadata: JSON.stringify(input.metadata ?? {}),
    text: input.text ?? null,
    deleted_at_source: null,
    // names only ever fill in or change: one the provider no longer gives keeps what was stored
    custodian_name: input.custodianName ?? row.custodian_name,
    custodian_email: input.custodianEmail ?? row.custodian_email,
  };
  const changed = (Object.keys(next) as (keyof typeof next)[]).some((k) => row[k] !== next[k]);
  return changed ? next : undefined;
}

/** The item with its custodian's name and e-mail as its unit knows them now, where the connector gave none. */
export function namedAfterUnit(input: ItemInput, unit: Pick<UnitState, 'name' | 'email'> | undefined): ItemInput {
  if (!unit) return input;
  return {
    ...input,
    custodianName: input.custodianName ?? (unit.name || null),
    custodianEmail: input.custodianEmail ?? (unit.email || null),
  };
}
