import type { BlobStore } from '../blobs/types.ts';
import { type CollectEvent, type ContentSource, type ItemInput, type Logger } from '../connectors/types.ts';
import { BlobRefRepo } from '../store/blob-refs.ts';
import type { Metrics } from '../metrics.ts';
import type { Database } from '../store/db.ts';
import { HoldRepo } from '../store/holds.ts';
import { ItemRepo, type ItemPatch, type ItemRow } from '../store/items.ts';
import { RunRepo, type Counters, type RunErrorRow } from '../store/runs.ts';
import { extractContentText, type DocumentReader } from '../search/index.ts';
import { applyOps, type ApplyScope, type ItemOp, type StoredContent } from './apply.ts';
import { fetchContent } from './content.ts';
import type { UnitLedger } from './ledger.ts';
import { ContentGoneError } from '../domain/run-failures.ts';

/** The run was cancelled or another process took it over: it must not write anything more. */
export class FencedOutError extends Error {
  override name = 'FencedOutError';
}

export interface SessionDeps {
  db: Database;
  blobs: BlobStore;
  /** Reads the text of docx and PDF content for the search index. */
  documents: DocumentReader;
  log: Logger;
  clock: () => Date;
  /**
   * An injected hold check (tests), asked before a flush transaction and OR-ed with the legal_holds table, which
   * is read inside it. Never read a database handle from here: on SQLite that would wait on the open transaction.
   */
  heldOverride?(collectionId: string): Promise<boolean>;
  metrics?: Metrics;
}

export interface SessionScope {
  runId: string;
  /** what items seen by this run are stamped with (see runs.listing_run_id) */
  listingRunId: string;
  owner: string;
  collectionId: string;
  accountId: string;
  typeSync: string;
  /** the collection type (metrics labels) */
  type: string;
  kinds: readonly string[];
  counters: Counters;
  signal: AbortSignal;
  /** per-unit counts, exceptions, retry list and progress events */
  ledger: UnitLedger;
  /** What each flush is fenced on; default: the run's lease (`runId`, `owner`). A unit job's session: its unit's. */
  fence?: SessionFence;
  /** Told of each item, checkpoint and piece of content received (the unit's liveness). */
  onProgress?: () => void;
}

/**
 * The first write of every flush transaction: stores the counters (and checkpoint, cursors) and proves the writer
 * still owns what it executes. False: cancelled or taken over, and the transaction rolls back.
 */
export interface SessionFence {
  save(
    trx: Database,
    at: string,
    p: { counters: Counters; checkpoint?: string; pendingCursors?: string },
  ): Promise<boolean>;
}

export function runFence(runId: string, owner: string): SessionFence {
  return { save: (trx, at, p) => new RunRepo(trx).saveProgress(runId, owner, at, p) };
}

const FLUSH_EVERY = 200;

/**
 * Turns a connector's events into durable state. Metadata-only items are buffered and written with the next
 * checkpoint (one transaction: a durable checkpoint implies every item before it is durable); an item with
 * content is written as soon as its blob is committed. Every transaction is fenced on run ownership.
 */
export class RunSession {
  readonly counters: Counters;
  private ops: ItemOp[] = [];
  private pendingKeys = new Set<string>();
  private errors: Omit<RunErrorRow, 'id'>[] = [];
  private pendingCursors: string | undefined;
  private readonly items: ItemRepo;
  private readonly refs: BlobRefRepo;

  constructor(
    private readonly deps: SessionDeps,
    private readonly scope: SessionScope,
  ) {
    this.counters = { ...scope.counters };
    this.items = new ItemRepo(deps.db);
    this.refs = new BlobRefRepo(deps.db);
  }

  async handle(ev: CollectEvent): Promise<void> {
    switch (ev.type) {
      case 'item':
        return this.onItem(ev.item, ev.content);
      case 'deleted':
        return this.onDeleted(ev.kind, ev.sourceId);
      case 'error':
        this.counters.failed += 1;
        this.onPieceError(ev);
        return this.recordError(ev.reason, ev.sourceId, ev.kind);
      case 'not_present':
        return this.onNotPresent(ev.custodian, ev);
      case 'provider_limit':
        return this.ledger.exception(ev.custodian, {
          sourceId: ev.sourceId,
          kind: ev.kind,
          name: ev.name,
          outcome: 'provider_limit',
          reason: ev.reason,
        });
      case 'excluded': {
        const n = Math.max(0, Math.floor(ev.count));
        this.ledger.count(ev.custodian, 'listed', n);
        this.ledger.count(ev.custodian, 'excluded', n);
        return;
      }
      case 'unit':
        this.ledger.announce(ev.unit, ev.status);
        if (ev.status === 'done' || ev.status === 'failed') return this.flush();
        return;
      case 'checkpoint':
        return this.flush({ checkpoint: JSON.stringify({ state: ev.state ?? null }) });
      case 'cursors':
        this.pendingCursors = JSON.stringify(ev.value ?? null);
        return;
      case 'present':
        this.ops.push({ type: 'present', kind: ev.kind, sourceId: ev.sourceId });
        if (this.ops.length >= FLUSH_EVERY) return this.flush();
        return;
      case 'listing_complete':
        return this.onListingComplete(ev.custodian, ev.kinds);
      default: {
        const never: never = ev;
        this.deps.log.warn({ event: (never as { type?: unknown }).type }, 'connector yielded an unknown event');
      }
    }
  }

  /** Writes everything buffered (and the checkpoint, when given) in one fenced transaction. */
  async flush(
    extra: { checkpoint?: string; final?: boolean; within?: (trx: Database) => Promise<void> } = {},
  ): Promise<void> {
    if (extra.checkpoint !== undefined) this.scope.onProgress?.();
    const ops = this.ops;
    const errors = this.errors;
    const at = this.now();
    // arch keeps everything anyway; elsewhere only writes that could drop content need to know about holds.
    const asks =
      this.scope.typeSync !== 'arch' &&
      ops.some((op) => op.type !== 'seen' && op.type !== 'present' && op.type !== 'mark_deleted');
    const override = asks && this.deps.heldOverride ? await this.deps.heldOverride(this.scope.collectionId) : false;
    const result = await this.deps.db.transaction().execute(async (trx) => {
      const runs = new RunRepo(trx);
      const fence = this.scope.fence ?? runFence(this.scope.runId, this.scope.owner);
      const owned = await fence.save(trx, at, {
        counters: this.counters,
        checkpoint: extra.checkpoint,
        pendingCursors: this.pendingCursors,
      });
      if (!owned) throw new FencedOutError('the run was cancelled or taken over by another process');
      let held: Promise<boolean> | undefined;
      const scope: ApplyScope = {
        collectionId: this.scope.collectionId,
        accountId: this.scope.accountId,
        runId: this.scope.runId,
        listingRunId: this.scope.listingRunId,
        typeSync: this.scope.typeSync,
        // Decided here, after the run row's lock, so that a hold placed concurrently is either seen or waits.
        held: () =>
          (held ??= override ? Promise.resolve(true) : new HoldRepo(trx).isHeldLocked(this.scope.collectionId)),
        at,
      };
      const applied = await applyOps(trx, scope, ops);
      await runs.addErrors(errors);
      await this.ledger.write(trx, extra.final);
      await extra.within?.(trx);
      return applied;
    });
    this.ops = [];
    this.errors = [];
    this.pendingKeys.clear();
    for (const sha of result.released) await this.refs.collect(sha, this.deps.blobs);
  }

  /** Blobs committed for buffered operations that will never be written: drop them unless referenced. */
  async discardPending(): Promise<void> {
    for (const op of this.ops) {
      if (op.type === 'upsert' && typeof op.content === 'object') {
        await this.refs.discard(op.content.sha256, op.content.size, this.deps.blobs, this.now()).catch(() => undefined);
      }
    }
    this.ops = [];
  }

  private get ledger(): UnitLedger {
    return this.scope.ledger;
  }

  private onPieceError(ev: Extract<CollectEvent, { type: 'error' }>): void {
    const key = ev.custodian ?? '';
    const kind = ev.kind ?? 'piece';
    const sourceId = ev.sourceId ?? key;
    this.ledger.count(key, 'listed');
    this.ledger.count(key, 'failed');
    // the stored reason is plain (domain/plain-reason.ts); the provider's full answer stays here, in the run's log
    this.deps.log.warn(
      {
        run_id: this.scope.runId,
        collection_id: this.scope.collectionId,
        source_id: sourceId,
        kind,
        reason: ev.reason,
      },
      'piece failed',
    );
    this.ledger.exception(key, { sourceId, kind, name: ev.name ?? sourceId, outcome: 'failed', reason: ev.reason });
    if (ev.retry !== undefined && ev.sourceId)
      this.ledger.failure({
        unitKey: key,
        kind,
        sourceId,
        name: ev.name ?? sourceId,
        piece: ev.retry,
        reason: ev.reason,
      });
  }

  private onNotPresent(
    key: string,
    p: { kind: string; sourceId: string; name: string; reason: string },
    listed = false,
  ): void {
    if (!listed) this.ledger.count(key, 'listed');
    this.ledger.count(key, 'not_present');
    this.ledger.exception(key, { ...p, outcome: 'not_present' });
    this.ledger.settled(p.kind, p.sourceId);
  }

  private now(): string {
    return this.deps.clock().toISOString();
  }

  private recordError(reason: string, sourceId?: string | null, kind?: string | null): void {
    this.counters.error_count += 1;
    this.errors.push({
      run_id: this.scope.runId,
      collection_id: this.scope.collectionId,
      source_id: sourceId ?? null,
      kind: kind ?? null,
      reason: reason.slice(0, 2000),
      at: this.now(),
    });
  }

  private push(op: ItemOp, key: string): Promise<void> | void {
    this.ops.push(op);
    this.pendingKeys.add(key);
    if (this.ops.length >= FLUSH_EVERY) return this.flush();
  }

  private pushSeen(id: string): Promise<void> | void {
    this.ops.push({ type: 'seen', id });
    if (this.ops.length >= FLUSH_EVERY) return this.flush();
  }

  private async lookup(kind: string, sourceId: string): Promise<ItemRow | undefined> {
    if (this.pendingKeys.has(keyOf(kind, sourceId))) await this.flush();
    return this.items.findByKey(this.scope.collectionId, kind, sourceId);
  }

  private async onItem(input: ItemInput, content: ContentSource | undefined): Promise<void> {
    this.scope.onProgress?.();
    const key = keyOf(input.kind, input.sourceId);
    const unit = input.custodian ?? '';
    this.counters.listed += 1;
    this.ledger.count(unit, 'listed');
    if (!this.scope.kinds.includes(input.kind)) {
      this.counters.failed += 1;
      this.ledger.count(unit, 'failed');
      const reason = `connector produced an item of unknown kind "${input.kind}"`;
      this.ledger.exception(unit, {
        sourceId: input.sourceId,
        kind: input.kind,
        name: input.name,
        outcome: 'failed',
        reason,
      });
      return this.recordError(reason, input.sourceId, input.kind);
    }
    const existing = await this.lookup(input.kind, input.sourceId);
    const version = input.version ?? null;
    if (existing && !existing.tombstoned_at && existing.version === version && (version !== null || !content)) {
      const stored = content
        ? existing.content_state === 'stored' && !!existing.sha256 && (await this.deps.blobs.has(existing.sha256))
        : existing.content_state === 'none';
      if (stored) {
        // Seen again after a resume from an earlier checkpoint of this same run.
        if (existing.run_id === this.scope.runId) {
          this.counters.skipped += 1;
          this.ledger.count(unit, 'skipped');
        } else {
          this.counters.unchanged += 1;
          this.ledger.count(unit, 'unchanged');
        }
        this.ledger.settled(input.kind, input.sourceId);
        // Listed again by another unit of this run (a one-to-one conversation seen from both sides): it stays
        // with the unit that collected it, so each unit's `collected` matches the items listed for it.
        if (existing.run_id === this.scope.runId && existing.custodian !== input.custodian) {
          if (existing.last_seen_run_id !== this.scope.listingRunId) return this.pushSeen(existing.id);
          return;
        }
        const patch = changedFields(existing, input);
        if (patch) return this.push({ type: 'touch', id: existing.id, patch }, key);
        // Nothing to rewrite, but a complete listing must know the source still has it.
        if (existing.last_seen_run_id !== this.scope.listingRunId) return this.pushSeen(existing.id);
        return;
      }
    }
    if (!content) {
      this.counters.collected += 1;
      this.ledger.count(unit, 'collected');
      this.ledger.settled(input.kind, input.sourceId);
      this.deps.metrics?.itemCollected(this.scope.type, input.kind);
      return this.push({ type: 'upsert', input, content: 'none' }, key);
    }
    const stored = await this.download(input, content);
    if (stored === 'gone') {
      // Deleted at the source between its listing and its download: not a failure.
      this.onNotPresent(
        unit,
        {
          kind: input.kind,
          sourceId: input.sourceId,
          name: input.name,
          reason: 'deleted at the source between its listing and its download',
        },
        true,
      );
      return this.onDeleted(input.kind, input.sourceId);
    }
    if (!stored.ok) {
      this.counters.failed += 1;
      this.ledger.count(unit, 'failed');
      this.ledger.exception(unit, {
        sourceId: input.sourceId,
        kind: input.kind,
        name: input.name,
        outcome: 'failed',
        reason: stored.reason,
      });
      this.ledger.failure({
        unitKey: unit,
        kind: input.kind,
        sourceId: input.sourceId,
        name: input.name,
        piece: { item: input },
        reason: stored.reason,
      });
      return this.push({ type: 'upsert', input, content: 'failed' }, key);
    }
    const blob = stored.content;
    this.ledger.settled(input.kind, input.sourceId);
    if (existing?.content_state === 'stored' && existing.sha256 === blob.sha256 && !existing.tombstoned_at) {
      this.counters.unchanged += 1;
      this.ledger.count(unit, 'unchanged');
    } else {
      this.counters.collected += 1;
      this.ledger.count(unit, 'collected');
      this.deps.metrics?.itemCollected(this.scope.type, input.kind);
    }
    this.ledger.count(unit, 'bytes', stored.transferred);
    // Read back from the blob store before the transaction, which should not wait on it.
    const fileType = typeof input.metadata?.file_type === 'string' ? input.metadata.file_type : null;
    const descriptor = {
      name: input.name,
      mime_type: input.mimeType ?? null,
      kind: input.kind,
      file_type: fileType,
      sha256: blob.sha256,
      size: blob.size,
    };
    const contentText = await extractContentText(this.deps.blobs, descriptor, {
      log: this.deps.log,
      documents: this.deps.documents,
    }).catch((err: unknown) => {
      this.deps.log.warn({ err: (err as Error).message, source_id: input.sourceId }, 'content text extraction failed');
      return null;
    });
    this.ops.push({ type: 'upsert', input, content: blob, contentText });
    await this.flush();
    if (!(await this.deps.blobs.has(blob.sha256))) {
      // Lost a race with the collection of an unreferenced blob of the same content; our reference is counted
      // now, so a second download makes it permanent.
      await this.download(input, content);
    }
  }

  private async download(
    input: ItemInput,
    content: ContentSource,
  ): Promise<{ ok: true; content: StoredContent; transferred: number } | { ok: false; reason: string } | 'gone'> {
    try {
      const fetched = await fetchContent(this.deps.blobs, content, {
        signal: this.scope.signal,
        onProgress: this.scope.onProgress,
      });
      // Until the item is written, only this note tells the orphan sweep that a live run owns the blob.
      await this.refs.noteCommitted(fetched.blob.sha256, fetched.blob.size, this.now());
      this.counters.bytes += fetched.transferred;
      this.deps.metrics?.bytesCollected(this.scope.type, fetched.transferred);
      for (const blob of fetched.rejected) {
        if (blob.sha256 !== fetched.blob.sha256)
          await this.refs.discard(blob.sha256, blob.size, this.deps.blobs, this.now());
      }
      if (fetched.problem)
        this.recordError(
          `content hash not verified after a second download: ${fetched.problem}`,
          input.sourceId,
          input.kind,
        );
      const { sha256, md5, size } = fetched.blob;
      return {
        ok: true,
        content: { sha256, md5, size, providerHash: fetched.providerHash, verified: fetched.verified },
        transferred: fetched.transferred,
      };
    } catch (err) {
      if (this.scope.signal.aborted) throw err;
      if (isGone(err)) return 'gone';
      const reason = `content download failed: ${(err as Error).message ?? String(err)}`;
      this.recordError(reason, input.sourceId, input.kind);
      return { ok: false, reason };
    }
  }

  /**
   * The connector yielded everything of this custodian and these kinds that the source still has: what this run
   * (or the attempts it resumes) did not see is gone from the source. Batches are fenced like any flush; a crash
   * midway is finished by the resumed run, which yields the same event again.
   */
  private async onListingComplete(custodian: string, kinds: string[]): Promise<void> {
    const known = kinds.filter((k) => this.scope.kinds.includes(k));
    if (known.length === 0) return;
    await this.flush();
    const auto = this.scope.typeSync === 'auto';
    let previous = '';
    for (;;) {
      const unseen = await this.items.unseen({
        collectionId: this.scope.collectionId,
        custodian,
        kinds: known,
        listingRunId: this.scope.listingRunId,
        already: auto ? 'tombstoned' : 'deleted_at_source',
        limit: FLUSH_EVERY,
      });
      const marker = unseen.map((r) => r.id).join(',');
      // Every batch changes the rows it selects; the same batch twice means nothing can progress.
      if (unseen.length === 0 || marker === previous) return;
      previous = marker;
      for (const row of unseen) {
        this.ops.push({ type: auto ? 'tombstone' : 'mark_deleted', kind: row.kind, sourceId: row.source_id });
      }
      await this.flush();
    }
  }

  private async onDeleted(kind: string, sourceId: string): Promise<void> {
    const existing = await this.lookup(kind, sourceId);
    if (!existing) return;
    const key = keyOf(kind, sourceId);
    if (this.scope.typeSync === 'auto') {
      if (existing.tombstoned_at) return;
      return this.push({ type: 'tombstone', kind, sourceId }, key);
    }
    // arch (and one): never remove anything, only record that the source deleted it.
    if (!existing.deleted_at_source) return this.push({ type: 'mark_deleted', kind, sourceId }, key);
  }
}

function isGone(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof ContentGoneError) return true;
  return false;
}

function keyOf(kind: string, sourceId: string): string {
  return `${kind}\u0000${sourceId}`;
}

/** Descriptive fields that changed without a content change (a rename, a move); undefined when none did. */
function changedFields(row: ItemRow, input: ItemInput): ItemPatch | undefined {
  const next = {
    name: input.name,
    path: input.path,
    custodian: input.custodian,
    metadata: JSON.stringify(input.metadata ?? {}),
    text: input.text ?? null,
    deleted_at_source: null,
  };
  const changed = (Object.keys(next) as (keyof typeof next)[]).some((k) => row[k] !== next[k]);
  return changed ? next : undefined;
}
