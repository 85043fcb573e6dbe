// One user's drive: a root delta round (full or changes), filtered by ancestry against the user's selection.
import type { UserFolders } from '../../domain/filters/edrive.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import type { CollectContext, CollectEvent } from '../types.ts';
import { childrenPage, childrenUrl, mapLimit } from './children.ts';
import { driveUrl, isContainer, isGraphLink, type DriveItem, type GraphPage } from './graph.ts';
import {
  ITEM_SELECT,
  driveItemEvent,
  fetchDriveItem,
  isMissingItem,
  vanished,
  type DriveRetry,
  type Fetched,
} from './items.ts';
import { slimEntry, type UserState } from './state.ts';
import { FolderTree, inSelection, type FolderNode } from './tree.ts';

export interface DriveSyncOptions {
  ctx: CollectContext;
  graphUrl: string;
  userId: string;
  selection: UserFolders;
  /** Mutated in place; it is part of every checkpoint. */
  state: UserState;
  /** The whole connector state, for checkpoints. */
  snapshot(): unknown;
}

const MAX_RESYNCS = 3;
const FETCH_CONCURRENCY = 4;

type Lookup = (id: string) => FolderNode | undefined;

export class DriveSync {
  private tree: FolderTree;
  /** id -> `${eTag}|${path}` of what this run already yielded: delta repeats items, resyncs repeat rounds. */
  private readonly yielded = new Map<string, string>();
  /** Folders deleted earlier in this run: their deleted descendants may come pages later. */
  private readonly buried = new Map<string, FolderNode>();
  /** Pieces of this round that failed: the round is then not a complete listing. */
  private failures = 0;

  constructor(private readonly o: DriveSyncOptions) {
    this.tree = new FolderTree(o.state.folders);
  }

  async *run(): AsyncGenerator<CollectEvent> {
    const st = this.o.state;
    const { http } = this.o.ctx;
    let resyncs = 0;
    for (;;) {
      const url = st.link ?? driveUrl(this.o.graphUrl, this.o.userId, '/root/delta');
      let page: GraphPage<DriveItem>;
      try {
        // Delta costs 2 resource units without a token, 1 with one (reference §3).
        page = await http.json<GraphPage<DriveItem>>(url, { cost: st.link ? 1 : 2 });
      } catch (error) {
        if (!this.needsResync(error) || ++resyncs > MAX_RESYNCS) throw error;
        this.o.ctx.log.warn(
          { user_id: this.o.userId, status: (error as ProviderError).status },
          'delta token refused: enumerating the drive again',
        );
        this.startResync();
        continue;
      }
      yield* this.applyPage(Array.isArray(page?.value) ? page.value : []);
      const next = page?.['@odata.nextLink'];
      if (next !== undefined) {
        st.link = this.graphLink(next);
        yield { type: 'checkpoint', state: this.o.snapshot() };
        continue;
      }
      const deltaLink = this.graphLink(page?.['@odata.deltaLink']);
      const unplaced = yield* this.finishRound();
      // A full enumeration (first run, or after a 410) yielded everything the selection holds: whatever the
      // engine kept that it did not see was deleted while no delta link covered it. Not when items went unplaced.
      // Before the checkpoint that ends the round, so a crash in between repeats it on resume.
      if (st.full && unplaced === 0 && this.failures === 0)
        yield { type: 'listing_complete', custodian: this.o.userId, kinds: ['file', 'folder'] };
      Object.assign(st, { phase: 'done', link: deltaLink, full: false });
      yield { type: 'checkpoint', state: this.o.snapshot() };
      return;
    }
  }

  /** Any 410 on a delta URL means "enumerate again" (reference §2.6); a 400 on a stored token means it is corrupt. */
  private needsResync(error: unknown): boolean {
    if (!(error instanceof ProviderError) || error.code !== 'http_error') return false;
    return error.status === 410 || (error.status === 400 && this.o.state.link !== null);
  }

  private startResync(): void {
    const st = this.o.state;
    if (!st.full) st.gone = st.folders;
    Object.assign(st, { full: true, link: null, pending: [], folders: {} });
    this.tree = new FolderTree(st.folders);
  }

  private graphLink(link: unknown): string {
    if (isGraphLink(this.o.graphUrl, link)) return link;
    throw new ProviderError('delta answered without a nextLink or deltaLink on the configured Graph endpoint', {
      code: 'invalid_response',
      retryable: false,
    });
  }

  private async *applyPage(raw: DriveItem[]): AsyncGenerator<CollectEvent> {
    const st = this.o.state;
    const entries = lastOccurrences(raw);
    // Folders first: a page may list a child before its (new or moved) parent.
    const before = new Map<string, FolderNode | undefined>();
    const relocated: string[] = [];
    const removed = new Set<string>();
    for (const e of entries) {
      if (e.deleted) {
        if (this.tree.has(e.id)) removed.add(e.id);
        continue;
      }
      if (!isContainer(e)) continue;
      const parent = e.root ? null : e.parentReference?.id;
      if (parent === undefined) continue;
      const prev = this.tree.get(e.id);
      if (!before.has(e.id)) before.set(e.id, prev);
      const name = e.root ? '' : (e.name ?? '');
      this.tree.set(e.id, [parent, name, e.eTag ?? null]);
      if (!st.full && prev && (prev[0] !== parent || prev[1] !== name)) relocated.push(e.id);
    }
    const old: Lookup = (id) => (before.has(id) ? before.get(id) : (this.tree.get(id) ?? this.buried.get(id)));
    const waiting = st.pending ?? [];
    st.pending = [];
    const live: DriveItem[] = [];
    for (const e of entries) {
      if (e.deleted) yield* this.onDeleted(e, removed.has(e.id), old);
      else if (!e.root) live.push(e);
    }
    for (const id of removed) {
      this.buried.set(id, this.tree.get(id)!);
      this.tree.delete(id);
    }
    yield* this.place(live, before);
    yield* this.walkRelocated(relocated, old);
    if (waiting.length > 0) yield* this.place(waiting, new Map());
  }

  private *onDeleted(e: DriveItem, wasFolder: boolean, old: Lookup): Generator<CollectEvent> {
    this.yielded.delete(e.id);
    let chain: string[] | undefined;
    if (wasFolder) chain = this.tree.chain(e.id, old);
    else if (e.parentReference?.id) chain = prefixed(e.id, this.tree.chain(e.parentReference.id, old));
    // Known to have been outside the selection: never collected, nothing to delete.
    if (chain && !inSelection(this.o.selection, chain)) return;
    yield { type: 'deleted', kind: wasFolder ? 'folder' : 'file', sourceId: e.id };
  }

  /** Yields the entries that fall within the selection; those whose ancestry is not known yet wait. */
  private async *place(
    entries: DriveItem[],
    before: Map<string, FolderNode | undefined>,
  ): AsyncGenerator<CollectEvent> {
    const st = this.o.state;
    const wanted: Array<{ entry: DriveItem; parentPath: string; key: string }> = [];
    let excluded = 0;
    for (const e of entries) {
      const parentId = e.parentReference?.id;
      const parentChain = parentId === undefined ? undefined : this.tree.chain(parentId);
      if (!parentChain) {
        (st.pending ??= []).push(slimEntry(e));
        continue;
      }
      const prev = before.get(e.id);
      // Change rounds list every changed item's ancestors too; an ancestor that did not change is no news.
      if (
        !st.full &&
        isContainer(e) &&
        prev &&
        prev[0] === parentId &&
        prev[1] === (e.name ?? '') &&
        prev[2] === (e.eTag ?? null)
      )
        continue;
      if (!inSelection(this.o.selection, [e.id, ...parentChain])) {
        excluded += 1;
        yield this.outside(e);
        continue;
      }
      const parentPath = this.tree.path(parentId!)!;
      const key = `${e.eTag ?? ''}|${parentPath}/${e.name ?? ''}`;
      if (this.yielded.get(e.id) !== key) wanted.push({ entry: e, parentPath, key });
    }
    if (excluded > 0) yield { type: 'excluded', custodian: this.o.userId, count: excluded };
    // Read an item again only when its delta entry lacks what the item needs (hasAllFields).
    const fetched = await mapLimit(wanted, FETCH_CONCURRENCY, async (w): Promise<Fetched> =>
      hasAllFields(w.entry)
        ? { ok: true, item: w.entry }
        : fetchDriveItem(this.o.ctx, this.o.graphUrl, this.o.userId, w.entry.id),
    );
    for (let i = 0; i < wanted.length; i++) {
      const got = fetched[i];
      const w = wanted[i];
      if (got.ok) {
        this.yielded.set(got.item.id, w.key);
        yield this.itemEvent(got.item, w.parentPath);
        continue;
      }
      if (got.gone) {
        yield* vanished(this.o.userId, w.entry, got.reason);
        continue;
      }
      this.failures += 1;
      yield {
        type: 'error',
        reason: got.reason,
        kind: isContainer(w.entry) ? 'folder' : 'file',
        sourceId: w.entry.id,
        name: `${w.parentPath}/${w.entry.name ?? ''}`,
        custodian: this.o.userId,
        retry: { userId: this.o.userId, id: w.entry.id, parentPath: w.parentPath } satisfies DriveRetry,
      };
    }
  }

  /**
   * Outside the selection is not gone from the source: what an earlier run collected of it (before the filters
   * narrowed, or where it was before it moved out) stays as collected, never marked deleted at the source.
   */
  private outside(e: DriveItem): CollectEvent {
    this.yielded.delete(e.id);
    return { type: 'present', custodian: this.o.userId, kind: isContainer(e) ? 'folder' : 'file', sourceId: e.id };
  }

  private itemEvent(item: DriveItem, parentPath: string): CollectEvent {
    return driveItemEvent(this.o.ctx, this.o.graphUrl, this.o.userId, item, parentPath);
  }

  /**
   * Delta reports a moved or renamed folder but not its descendants: their paths changed, and they may have
   * entered or left the selection. Listing the subtree yields them again (an unchanged version only updates the
   * path) or deletes them. Skipped when neither the old nor the new place can touch the selection.
   */
  private async *walkRelocated(relocated: string[], old: Lookup): AsyncGenerator<CollectEvent> {
    const moved = new Set(relocated);
    const sel = this.o.selection;
    for (const id of relocated) {
      const chain = this.tree.chain(id);
      if (!chain || chain.slice(1).some((a) => moved.has(a))) continue;
      const oldChain = this.tree.chain(id, old);
      const touches =
        inSelection(sel, chain) ||
        !oldChain ||
        inSelection(sel, oldChain) ||
        (!sel.all_selected && sel.selected.some((s) => s.id !== id && this.tree.chain(s.id)?.includes(id)));
      if (touches) yield* this.walk(id);
    }
  }

  private async *walk(rootId: string): AsyncGenerator<CollectEvent> {
    const stack = [rootId];
    while (stack.length > 0) {
      const folderId = stack.pop()!;
      const folderChain = this.tree.chain(folderId);
      const parentPath = this.tree.path(folderId);
      if (!folderChain || parentPath === undefined) continue;
      let link: string | null = childrenUrl(this.o.graphUrl, this.o.userId, folderId, ITEM_SELECT);
      while (link) {
        let page: { items: DriveItem[]; next: string | null };
        try {
          page = await childrenPage(this.o.ctx.http, this.o.graphUrl, link);
        } catch (error) {
          if (isMissingItem(error)) break;
          throw error;
        }
        for (const c of page.items) {
          if (isContainer(c)) {
            this.tree.set(c.id, [folderId, c.name ?? '', c.eTag ?? null]);
            stack.push(c.id);
          }
          if (!inSelection(this.o.selection, [c.id, ...folderChain])) {
            yield this.outside(c);
            continue;
          }
          const key = `${c.eTag ?? ''}|${parentPath}/${c.name ?? ''}`;
          if (this.yielded.get(c.id) === key) continue;
          this.yielded.set(c.id, key);
          yield this.itemEvent(c, parentPath);
        }
        link = page.next;
      }
    }
  }

  /** Returns how many entries could not be placed (reported as errors). */
  private *finishRound(): Generator<CollectEvent, number> {
    const st = this.o.state;
    const unplaced = st.pending?.length ?? 0;
    for (const e of st.pending ?? []) {
      yield {
        type: 'error',
        reason: `OneDrive item ${e.id} of user ${this.o.userId} was not collected: delta never reported its parent folder`,
        sourceId: e.id,
        kind: isContainer(e) ? 'folder' : 'file',
      };
    }
    st.pending = [];
    if (st.gone) {
      // After a resync: folders known before that the new enumeration no longer lists are gone.
      const gone = new FolderTree(st.gone);
      for (const id of gone.ids()) {
        if (this.tree.has(id)) continue;
        const chain = gone.chain(id);
        if (!chain || inSelection(this.o.selection, chain)) yield { type: 'deleted', kind: 'folder', sourceId: id };
      }
      delete st.gone;
    }
    return unplaced;
  }
}

/**
 * Whether a delta entry is the whole item: its authors (the delta reference names neither `createdBy` nor
 * `lastModifiedBy` as omitted on OneDrive for Business any more, but older revisions did: reference Correction G2)
 * and, for a file, a content version (its quickXorHash; delta never carries the cTag on ODB).
 */
export function hasAllFields(e: DriveItem): boolean {
  if (e.createdBy === undefined || e.lastModifiedBy === undefined) return false;
  return !e.file || e.file.hashes?.quickXorHash !== undefined || e.cTag !== undefined;
}

/** Delta may list an item more than once; the last occurrence is its current state (reference §2.6). */
function lastOccurrences(entries: DriveItem[]): DriveItem[] {
  const byId = new Map<string, DriveItem>();
  for (const e of entries) {
    if (typeof e?.id !== 'string') continue;
    byId.delete(e.id);
    byId.set(e.id, e);
  }
  return [...byId.values()];
}

function prefixed(id: string, chain: string[] | undefined): string[] | undefined {
  return chain ? [id, ...chain] : undefined;
}
