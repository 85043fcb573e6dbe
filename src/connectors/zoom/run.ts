import type { ConfFilters, ContentType } from '../../domain/filters/conf.ts';
import type { Selection } from '../../domain/filters/selection.ts';
import type { CollectContext, CollectEvent } from '../types.ts';
import type { ZoomApi } from './api.ts';
import type { Owner } from './items.ts';
import type { Cursors, RunState } from './state.ts';
import type { PreservationIndex } from './preservation.ts';
import type { SummaryIndex } from './summaries.ts';
import { DAY_MS, startOfDay } from './windows.ts';

/** Later runs start this long before the previous run's start: recordings appear hours after a meeting began. */
export const OVERLAP_MS = 2 * DAY_MS;

/** What the phases of one run share. */
export interface ZoomRun {
  ctx: CollectContext;
  api: ZoomApi;
  state: RunState;
  content: Set<ContentType>;
  channels: Selection<{ id: string }> | null;
  /** The run's selected owners (every planned owner in a fanned-out run). */
  owners: Owner[];
  /** The account's AI summaries of the run's owners (summaries.ts); null when not listed (per-meeting lookups). */
  summaries: SummaryIndex | null;
  /** What the grant's preservation scopes reach, listed once for the run (preservation.ts). */
  preservation: PreservationIndex;
  /** Start of the collection's reach (the lookback), whatever the cursors say. */
  lookbackStart: number;
  now(): number;
  /** Start of an owner's history in this run: the lookback, or the previous run's mark minus the overlap. */
  ownerSince(ownerId: string): number;
  channelSince(channelId: string): number;
  /** The selected owner a one-to-one peer is (by user id, else by e-mail), if any. */
  peerOwner(peer: { id?: string; email?: string }): string | undefined;
  /**
   * Whether an owner finished earlier in this run already listed the whole one-to-one history with this peer
   * owner (it came first in id order, did not fail, and looked at least as far back). A run in one job only: a
   * fanned-out run's units claim each conversation instead.
   */
  peerCovered(ownerId: string, peerId: string): boolean;
  checkpoint(): Extract<CollectEvent, { type: 'checkpoint' }>;
  /** Whether a URL may receive the bearer token (content.ts zoomHostCheck). */
  isZoomHost(url: string): boolean;
}

export function createRun(
  ctx: CollectContext,
  api: ZoomApi,
  state: RunState,
  opts: {
    lookbackDays: number;
    cursors: Cursors;
    content: Set<ContentType>;
    channels: Selection<{ id: string }> | null;
    owners: Owner[];
    isZoomHost(url: string): boolean;
    summaries?: SummaryIndex | null;
    preservation?: PreservationIndex;
  },
): ZoomRun {
  const lookbackStart = startOfDay(state.startedAt - opts.lookbackDays * DAY_MS);
  const sinceMark = (mark: number | undefined) =>
    typeof mark === 'number' && Number.isFinite(mark) ? Math.max(lookbackStart, mark - OVERLAP_MS) : lookbackStart;
  const ownerSince = (id: string) => sinceMark(opts.cursors.owners[id]);
  const { byEmail, ownerIds } = peerIndex(opts.owners);
  return {
    ctx,
    api,
    state,
    isZoomHost: opts.isZoomHost,
    content: opts.content,
    channels: opts.channels,
    owners: opts.owners,
    summaries: opts.summaries ?? null,
    preservation: opts.preservation ?? {},
    lookbackStart,
    now: () => ctx.now().getTime(),
    ownerSince,
    channelSince: (id) => sinceMark(opts.cursors.channels[id]),
    peerOwner: (peer) =>
      peer.id && ownerIds.has(peer.id) ? peer.id : peer.email ? byEmail.get(peer.email.toLowerCase()) : undefined,
    peerCovered(ownerId, peerId) {
      if (peerId >= ownerId || state.failed.includes(peerId)) return false;
      return ownerSince(peerId) <= ownerSince(ownerId);
    },
    checkpoint: () => ({ type: 'checkpoint', state: structuredClone(state) }),
  };
}

const peerIndexes = new WeakMap<Owner[], { byEmail: Map<string, string>; ownerIds: Set<string> }>();

/** The owners by e-mail and id, once per list: every unit of a run in this process gets the plan's one list. */
function peerIndex(owners: Owner[]): { byEmail: Map<string, string>; ownerIds: Set<string> } {
  let index = peerIndexes.get(owners);
  if (!index) {
    index = {
      byEmail: new Map(owners.filter((o) => o.email).map((o) => [o.email.toLowerCase(), o.id])),
      ownerIds: new Set(owners.map((o) => o.id)),
    };
    peerIndexes.set(owners, index);
  }
  return index;
}

/** The earliest start of any of these owners' history in a run: the window of the account's summaries list. */
export function earliestSince(startedAt: number, lookbackDays: number, cursors: Cursors, ownerIds: string[]): number {
  const lookbackStart = startOfDay(startedAt - lookbackDays * DAY_MS);
  let earliest = startedAt;
  for (const id of ownerIds) {
    const mark = cursors.owners[id];
    const since =
      typeof mark === 'number' && Number.isFinite(mark) ? Math.max(lookbackStart, mark - OVERLAP_MS) : lookbackStart;
    earliest = Math.min(earliest, since);
  }
  return earliest;
}

/**
 * The earliest start of the owners a run is expected to have, before they are listed (summaries.ts summariesAhead):
 * those the filters name, or when all are selected the previous run's (the lookback on a first run).
 */
export function expectedSince(startedAt: number, lookbackDays: number, cursors: Cursors, filters: ConfFilters): number {
  const selection = filters.account_owners;
  const ids = selection.all_selected ? Object.keys(cursors.owners) : selection.selected.map((s) => s.id);
  return ids.length === 0
    ? startOfDay(startedAt - lookbackDays * DAY_MS)
    : earliestSince(startedAt, lookbackDays, cursors, ids);
}
