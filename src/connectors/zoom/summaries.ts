// AI Companion summaries from the account's list (../shared/reference/zoom-api.md, Correction Z3): it includes
// meetings that have no cloud recording, which no recordings listing shows. It is read once per run (at planning
// for a fanned-out run, which hands each owner's part to the owner's unit) and tells each owner's collection which
// of its meetings have a summary to fetch, and which summarised meetings it must create from the summary's facts.
import type { CollectEvent } from '../types.ts';
import { isPieceFailure, pages, type ZoomApi } from './api.ts';
import { meetingItem, type Owner } from './items.ts';
import { recordEvent } from './record.ts';
import { meetingSummary, summaryEvents } from './meetings.ts';
import type { ZoomRun } from './run.ts';
import type { Position } from './state.ts';
import type { RecordedMeeting, ZoomPage } from './wire.ts';
import { isoSeconds, parseTime } from './windows.ts';

/** The facts of one entry of GET /meetings/meeting_summaries that a collection keeps. */
export interface ListedSummary {
  meeting_uuid: string;
  meeting_id?: number;
  meeting_topic?: string;
  meeting_start_time?: string;
  meeting_end_time?: string;
  summary_start_time?: string;
}

/** Listed summaries by host user id. */
export type SummaryIndex = Record<string, ListedSummary[]>;

interface SummariesPage extends ZoomPage {
  summaries?: Array<ListedSummary & { meeting_host_id?: string }>;
}

/** A listed summary and its meeting's host: what a run keeps of the list until its owners are known. */
type Listed = Array<{ host: string; entry: ListedSummary }>;

/** Every summary whose summary starts within [from, to] (epoch ms), with its host. */
async function listRange(api: ZoomApi, from: number, to: number, now: () => number): Promise<Listed> {
  const out: Listed = [];
  const query = { from: isoSeconds(from), to: isoSeconds(to), page_size: 300 };
  for await (const { page } of pages<SummariesPage>(
    api,
    'listing meeting summaries',
    '/meetings/meeting_summaries',
    query,
    null,
    now,
  ))
    for (const s of page.summaries ?? []) {
      if (!s?.meeting_uuid || !s.meeting_host_id) continue;
      const entry: ListedSummary = { meeting_uuid: s.meeting_uuid };
      for (const k of [
        'meeting_id',
        'meeting_topic',
        'meeting_start_time',
        'meeting_end_time',
        'summary_start_time',
      ] as const) {
        if (s[k] !== undefined && s[k] !== null) (entry as unknown as Record<string, unknown>)[k] = s[k];
      }
      out.push({ host: s.meeting_host_id, entry });
    }
  return out;
}

/** The listed summaries of the hosts in `hosts`, each meeting once. */
function indexOf(listed: Listed, hosts: Set<string>): SummaryIndex {
  const out: SummaryIndex = {};
  const seen = new Set<string>();
  for (const { host, entry } of listed) {
    if (!hosts.has(host) || seen.has(entry.meeting_uuid)) continue;
    seen.add(entry.meeting_uuid);
    (out[host] ??= []).push(entry);
  }
  for (const list of Object.values(out))
    list.sort((a, b) => (a.meeting_uuid < b.meeting_uuid ? -1 : a.meeting_uuid > b.meeting_uuid ? 1 : 0));
  return out;
}

/** Reads a SummaryIndex handed over as plan data; null when absent or malformed. */
export function readSummaryIndex(value: unknown): SummaryIndex | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const out: SummaryIndex = {};
  for (const [host, list] of Object.entries(value as Record<string, unknown>)) {
    if (!Array.isArray(list)) return null;
    out[host] = list.filter((e): e is ListedSummary => typeof (e as ListedSummary)?.meeting_uuid === 'string');
  }
  return out;
}

/** The meeting a summary describes, from the summary's own facts (for a meeting no recordings listing shows). */
export function meetingOfSummary(owner: Owner, s: ListedSummary): RecordedMeeting {
  const start = parseTime(s.meeting_start_time);
  const end = parseTime(s.meeting_end_time);
  return {
    uuid: s.meeting_uuid,
    id: s.meeting_id,
    host_id: owner.id,
    topic: s.meeting_topic,
    start_time: s.meeting_start_time,
    ...(start !== undefined && end !== undefined && end >= start
      ? { duration: Math.round((end - start) / 60_000) }
      : {}),
    recording_files: [],
  };
}

/**
 * After the owner's recordings listings: each listed summary whose meeting none of them showed (never recorded, or
 * its recording purged) becomes a meeting item (`recorded: false`) and its summary. `pos.skip` counts the entries
 * handled, for a resumed run.
 */
export async function* unrecordedSummaries(run: ZoomRun, owner: Owner, pos: Position): AsyncGenerator<CollectEvent> {
  const listed = run.summaries?.[owner.id] ?? [];
  const covered = new Set(pos.covered ?? []);
  const since = run.ownerSince(owner.id);
  for (let i = pos.skip ?? 0; i < listed.length; i++) {
    const s = listed[i];
    const at = parseTime(s.summary_start_time ?? s.meeting_start_time);
    if (!covered.has(s.meeting_uuid) && (at === undefined || at >= since)) {
      const m = meetingOfSummary(owner, s);
      // Its record is the summaries list's entry: the meeting facts Zoom returned for it.
      yield recordEvent(meetingItem(owner, m, undefined, { recorded: false }), s);
      yield* summaryEvents(owner, m, await meetingSummary(run, m.uuid));
    }
    pos.skip = i + 1;
    yield run.checkpoint();
  }
}

/** The summaries list of a run, asked for before its owners are known (summariesAhead). */
export interface SummariesAhead {
  /** The run's summaries, once its owners and the earliest start of their history are known. */
  of(owners: Owner[], from: number): Promise<{ index: SummaryIndex | null; events: CollectEvent[] }>;
  /** Listing the owners failed: what was asked for ahead stops. */
  cancel(): void;
}

/**
 * The summaries list of a run (read once, at its start or at planning), asked for while the run's owners are listed
 * (issue 25: the run's units waited on the two one after the other). It starts at `guess`, the earliest start of the
 * owners the run is expected to have (the previous run's, or the lookback); once the owners are known, the part of
 * their history before the guess (an owner new to the collection) is listed too. What starts after an owner's own
 * start is left out where the list is used (unrecordedSummaries). `guess` null (a run targeted at some owners): the
 * list is asked for once the owners are known, from their earliest start.
 *
 * `index` null when AI meeting notes are not selected or the list failed (then each recorded meeting's summary is
 * asked for, as before, and the failure is reported once). A refused scope is not caught: it concerns the whole
 * collection.
 */
export function summariesAhead(
  api: ZoomApi,
  opts: { guess: number | null; to: number; selected: boolean; now: () => number },
): SummariesAhead {
  const stop = new AbortController();
  const { guess } = opts;
  const early =
    opts.selected && guess !== null ? listRange(api.withSignal(stop.signal), guess, opts.to, opts.now) : null;
  // Awaited once the owners are known, or never (listing them failed): not an unhandled rejection meanwhile.
  early?.catch(() => undefined);
  return {
    async of(owners, from) {
      if (!opts.selected || owners.length === 0) return { index: null, events: [] };
      try {
        const listed =
          early && guess !== null
            ? [...(from < guess ? await listRange(api, from, guess, opts.now) : []), ...(await early)]
            : await listRange(api, from, opts.to, opts.now);
        return { index: indexOf(listed, new Set(owners.map((o) => o.id))), events: [] };
      } catch (err) {
        return failed(err);
      }
    },
    cancel: () => stop.abort(),
  };
}

function failed(err: unknown): { index: null; events: CollectEvent[] } {
  if (!isPieceFailure(err)) throw err;
  const reason = `listing the account's meeting summaries failed (${err.message}): summaries of meetings without a recording were not collected in this run`;
  return {
    index: null,
    events: [
      {
        type: 'error',
        reason,
        kind: 'ai_meeting_notes',
        sourceId: 'meeting_summaries',
        name: 'meeting summaries list',
      },
    ],
  };
}
