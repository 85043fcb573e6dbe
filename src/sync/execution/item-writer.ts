import type { BlobStore } from '../../blobs/types.ts';
import { type CollectEvent, type ContentSource, type ItemInput, type Logger } from '../../connectors/types.ts';
import { BlobRefRepo } from '../../store/blob-refs.ts';
import type { Metrics } from '../../metrics.ts';
import type { Database } from '../../store/db.ts';
import { ItemRepo, type ItemRow } from '../../store/items.ts';
import type { Counters } from '../../store/runs.ts';
import type { RunErrorRow } from '../../store/run-errors.ts';
import type { DocumentReader } from '../../search/index.ts';
import { changedFields, namedAfterUnit, type ItemOp } from './apply.ts';
import { FreshBlobs, refetchMissing } from './fresh-blobs.ts';
import { goneOp, sweepUnseen } from './gone-from-source.ts';
import { downloadContent, searchTextOf, type Downloaded } from './item-content.ts';
import { runFence, type WriteFence } from './lease.ts';
import { pieceError, type UnitLedger } from './ledger.ts';
import { KeyLookups } from './key-lookups.ts';
import { keyOf } from './page-rows.ts';
import { PageTexts } from './page-texts.ts';
import { writePage } from './write-page.ts';

export interface WriterDeps {
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

export interface WriterScope {
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
  fence?: WriteFence;
  /** Told of each item, checkpoint and piece of content received (the unit's liveness). */
  onProgress?: () => void;
}

const FLUSH_EVERY = 200;
/** Search texts extracted at once while the writer goes on (page-texts.ts). */
const TEXTS_IN_FLIGHT = 16;

/**
 * For `npm run bench -- small-items` only: `perItem` restores the old path (one transaction and one blob fsync per
 * item with content) so that the bench prints the baseline beside the batched figures in one run; `inline`, the
 * batched path as it was before page-texts.ts and key-lookups.ts (a text extracted and a row looked up per item).
 */
export const writerTuning = { perItem: false, inline: false };

/**
 * Turns a connector's events into durable state. Items are buffered and written a page at a time, and with the
 * next checkpoint (one transaction: a durable checkpoint implies every item before it is durable); the blobs of a
 * page's items are made durable together just before it (fresh-blobs.ts). Every transaction is fenced on run
 * ownership.
 */
export class ItemWriter {
  readonly counters: Counters;
  private ops: ItemOp[] = [];
  private pendingKeys = new Set<string>();
  private errors: Omit<RunErrorRow, 'id'>[] = [];
  private pendingCursors: string | undefined;
  private readonly items: ItemRepo;
  private readonly refs: BlobRefRepo;
  private readonly perItem = writerTuning.perItem;
  private readonly inline = writerTuning.inline;
  private readonly fresh = new FreshBlobs(this.perItem);
  private readonly texts = new PageTexts(TEXTS_IN_FLIGHT);
  private readonly lookups: KeyLookups;

  constructor(
    private readonly deps: WriterDeps,
    private readonly scope: WriterScope,
  ) {
    this.counters = { ...scope.counters };
    this.items = new ItemRepo(deps.db);
    this.refs = new BlobRefRepo(deps.db);
    this.lookups = new KeyLookups((keys) => this.items.findManyByKeys(scope.collectionId, keys), FLUSH_EVERY);
  }

  /** The listing yielded this key, which `handle` will get later: its stored row is read with a batch. */
  expect(kind: string, sourceId: string): void {
    this.lookups.expect(kind, sourceId);
  }

  async handle(ev: CollectEvent): Promise<void> {
    switch (ev.type) {
      case 'item':
        return this.onItem(ev.item, ev.content);
      case 'deleted':
        return this.onDeleted(ev.kind, ev.sourceId);
      case 'error':
        this.counters.failed += 1;
        pieceError(this.ledger, this.deps.log, this.scope, ev);
        return this.recordError(ev.reason, ev.sourceId, ev.kind);
      case 'not_present':
        return this.ledger.notPresent(ev.custodian, ev);
      case 'provider_limit':
        return this.ledger.exception(ev.custodian, { ...ev, outcome: 'provider_limit' });
      case 'excluded': {
        const n = Math.max(0, Math.floor(ev.count));
        this.ledger.count(ev.custodian, 'listed', n);
        this.ledger.count(ev.custodian, 'excluded', n);
        return;
      }
      case 'unit':
        this.ledger.announce(ev.unit, ev.status);
        if (ev.status === 'done' || ev.status === 'failed')
          return this.flush(ev.checkpoint && checkpointOf(ev.checkpoint));
        return;
      case 'checkpoint':
        return this.flush(checkpointOf(ev));
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
    await this.texts.settle();
    const ops = this.ops;
    const errors = this.errors;
    const at = this.now();
    // arch keeps everything anyway; elsewhere only writes that could drop content need to know about holds.
    const asks =
      this.scope.typeSync !== 'arch' &&
      ops.some((op) => op.type !== 'seen' && op.type !== 'present' && op.type !== 'mark_deleted');
    const override = asks && this.deps.heldOverride ? await this.deps.heldOverride(this.scope.collectionId) : false;
    const page = await this.fresh.beforeCommit(this.deps.blobs, this.refs, at);
    const result = await writePage(this.deps.db, {
      fence: this.scope.fence ?? runFence(this.scope.runId, this.scope.owner),
      at,
      scope: {
        collectionId: this.scope.collectionId,
        accountId: this.scope.accountId,
        runId: this.scope.runId,
        listingRunId: this.scope.listingRunId,
        typeSync: this.scope.typeSync,
      },
      heldOverride: override,
      counters: this.counters,
      checkpoint: extra.checkpoint,
      pendingCursors: this.pendingCursors,
      ops,
      errors,
      ledger: this.ledger,
      final: extra.final,
      within: extra.within,
    });
    this.fresh.committed(page);
    this.ops = [];
    this.errors = [];
    for (const key of this.pendingKeys) this.lookups.forget(key);
    this.pendingKeys.clear();
    for (const sha of result.released) await this.refs.collect(sha, this.deps.blobs);
    // Lost a race with the collection of an unreferenced blob of the same content: our reference is counted now,
    // so a second download makes it permanent.
    await refetchMissing(page, this.deps.blobs, (b) => this.download(b.input, b.content, true));
  }

  /** Blobs committed for buffered operations that will never be written: drop them unless referenced. */
  async discardPending(): Promise<void> {
    this.fresh.clear();
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

  /** `durable`: synced at once, not left to the page's group commit (a download again after the page's commit). */
  private download(input: ItemInput, content: ContentSource, durable = false): Promise<Downloaded> {
    return downloadContent(
      {
        deferSync: !this.perItem && !durable,
        blobs: this.deps.blobs,
        refs: this.refs,
        signal: this.scope.signal,
        onProgress: this.scope.onProgress,
        now: () => this.now(),
        transferred: (bytes) => {
          this.counters.bytes += bytes;
          this.deps.metrics?.bytesCollected(this.scope.type, bytes);
        },
        recordError: (reason) => this.recordError(reason, input.sourceId, input.kind),
      },
      content,
    );
  }

  /** One more piece of this outcome, in the run's counters and in its unit's. */
  private tally(unit: string, field: 'listed' | 'skipped' | 'unchanged' | 'collected'): void {
    this.counters[field] += 1;
    this.ledger.count(unit, field);
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
    if (this.inline) return this.items.findByKey(this.scope.collectionId, kind, sourceId);
    return this.lookups.take(kind, sourceId);
  }

  private async onItem(given: ItemInput, content: ContentSource | undefined): Promise<void> {
    this.scope.onProgress?.();
    const input = namedAfterUnit(given, given.custodian ? this.ledger.units.get(given.custodian) : undefined);
    const key = keyOf(input.kind, input.sourceId);
    const unit = input.custodian ?? '';
    this.tally(unit, 'listed');
    if (!this.scope.kinds.includes(input.kind)) {
      this.counters.failed += 1;
      const reason = `connector produced an item of unknown kind "${input.kind}"`;
      this.ledger.pieceFailed(unit, { sourceId: input.sourceId, kind: input.kind, name: input.name, reason }, true);
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
        this.tally(unit, existing.run_id === this.scope.runId ? 'skipped' : 'unchanged');
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
      this.tally(unit, 'collected');
      this.ledger.settled(input.kind, input.sourceId);
      this.deps.metrics?.itemCollected(this.scope.type, input.kind);
      return this.push({ type: 'upsert', input, content: 'none' }, key);
    }
    const stored = await this.download(input, content);
    if (stored === 'gone') {
      // Deleted at the source between its listing and its download: not a failure.
      this.ledger.notPresent(
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
      const { kind, sourceId, name } = input;
      this.ledger.pieceFailed(unit, { sourceId, kind, name, reason: stored.reason }, true);
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
      this.tally(unit, 'unchanged');
    } else {
      this.tally(unit, 'collected');
      this.deps.metrics?.itemCollected(this.scope.type, input.kind);
    }
    this.ledger.count(unit, 'bytes', stored.transferred);
    this.fresh.add({ sha256: blob.sha256, size: blob.size, input, content, noted: stored.noted });
    const op: ItemOp & { type: 'upsert' } = { type: 'upsert', input, content: blob };
    this.ops.push(op);
    this.pendingKeys.add(key);
    // Extracted while the writer goes on; in the op before the flush that writes the item (page-texts.ts).
    await this.texts.add(op, searchTextOf(this.deps, input, blob, stored.bytes));
    if (this.inline) await this.texts.settle();
    // Written with the page (group commit: fresh-blobs.ts), or at once on the old per-item path.
    if (this.perItem || this.ops.length >= FLUSH_EVERY) await this.flush();
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
    const { collectionId, listingRunId, typeSync } = this.scope;
    await sweepUnseen(
      this.items,
      { collectionId, custodian, kinds: known, listingRunId, typeSync },
      FLUSH_EVERY,
      (ops) => {
        for (const op of ops) this.lookups.forget(keyOf(op.kind, op.sourceId));
        this.ops.push(...ops);
        return this.flush();
      },
    );
  }

  private async onDeleted(kind: string, sourceId: string): Promise<void> {
    const existing = await this.lookup(kind, sourceId);
    const op = existing && goneOp(this.scope.typeSync, existing);
    if (op) return this.push(op, keyOf(kind, sourceId));
  }
}

/** A connector's checkpoint as the flush stores it. */
const checkpointOf = (c: { state: unknown }) => ({ checkpoint: JSON.stringify({ state: c.state ?? null }) });
