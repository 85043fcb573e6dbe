// One owner's recorded meetings: the meeting's metadata always, the files and the AI summary as selected.
import type { CollectEvent } from '../types.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import type { ItemInput } from '../types.ts';
import { inOrderAhead, LISTINGS_AHEAD } from './ahead.ts';
import { isPieceFailure, meetingPath, pages, scoped, userPath, type Query } from './api.ts';
import { bufferSource, downloadSource } from './content.ts';
import {
  fileItem,
  fileKind,
  meetingFolder,
  meetingItem,
  participantAudioItem,
  summaryItem,
  type Owner,
} from './items.ts';
import { recordEvent } from './record.ts';
import type { ZoomRun } from './run.ts';
import type { Position } from './state.ts';
import { unrecordedSummaries } from './summaries.ts';
import type { MeetingSummary, RecordedMeeting, RecordingFile, RecordingsPage } from './wire.ts';
import { isoDate, monthWindows, parseTime, startOfDay } from './windows.ts';

/** One listing of an owner's recordings: a month window, or one of the two trash listings (Correction Z2). */
interface Listing {
  what: string;
  query: Query;
  trash?: 'meeting_recordings' | 'recording_file';
}

function listingsOf(run: ZoomRun, owner: Owner): Listing[] {
  const windows = monthWindows(startOfDay(run.ownerSince(owner.id)), run.state.startedAt);
  const trash = (type: 'meeting_recordings' | 'recording_file'): Listing => ({
    what: 'listing recordings in the trash',
    // "The trash files cannot be filtered by date range": no from/to.
    query: { trash: true, trash_type: type, page_size: 300 },
    trash: type,
  });
  return [
    ...windows.map((w) => ({
      what: 'listing recordings',
      query: { from: isoDate(w.start), to: isoDate(w.end), page_size: 300 },
    })),
    trash('meeting_recordings'),
    trash('recording_file'),
  ];
}

/**
 * A window's whole listing is read before any of its items is handed over: the engine downloads each file
 * before asking for the next event, which can take far longer than a page token's 15 minutes. The next windows
 * are listed meanwhile (ahead.ts), and the AI summaries of the next meetings asked for; items still come window
 * by window, so a checkpoint names a window only when every window before it was handed over. A resumed run
 * lists the window again and skips the meetings it had finished when the listing still starts the same way.
 * After the month windows come the trash listings, then the summarised meetings no listing showed.
 */
export async function* collectRecordings(run: ZoomRun, owner: Owner, pos: Position): AsyncGenerator<CollectEvent> {
  const listings = listingsOf(run, owner);
  // A meeting (or a file) moved to the trash during the run is in a listing read before the move or in a trash
  // listing read after it; a trash listing read while an earlier listing is still going could miss it in both.
  // So a trash listing starts once every listing before it was read, as in a walk in sequence; the month windows
  // are listed ahead freely (a meeting never moves from one month to another).
  const earlier: Promise<unknown>[] = [];
  const listed = inOrderAhead(pos.window, listings.length, LISTINGS_AHEAD, (i) => {
    const meetings = listings[i].trash
      ? Promise.allSettled([...earlier]).then(() => meetingsOf(run, owner, listings[i]))
      : meetingsOf(run, owner, listings[i]);
    earlier.push(meetings);
    return meetings;
  });
  for await (const meetings of listed) {
    const listing = listings[pos.window];
    const skip = pos.skip && meetings[pos.skip - 1]?.uuid === pos.lastUuid ? pos.skip : 0;
    const summaries = inOrderAhead(skip, meetings.length, LISTINGS_AHEAD, (i) =>
      summaryFor(run, owner, meetings[i], listing.trash),
    );
    let i = skip;
    for await (const summary of summaries) {
      yield* meetingEvents(run, owner, meetings[i], listing.trash, summary);
      if (run.summaries?.[owner.id]?.some((s) => s.meeting_uuid === meetings[i].uuid))
        (pos.covered ??= []).push(meetings[i].uuid);
      pos.skip = i + 1;
      pos.lastUuid = meetings[i].uuid;
      i += 1;
      yield run.checkpoint();
    }
    pos.skip = 0;
    delete pos.lastUuid;
    pos.window += 1;
  }
  if (run.summaries && run.content.has('AI-meeting-notes')) yield* unrecordedSummaries(run, owner, pos);
}

/** Every meeting of one listing, all its pages read. */
async function meetingsOf(run: ZoomRun, owner: Owner, listing: Listing): Promise<RecordedMeeting[]> {
  const meetings: RecordedMeeting[] = [];
  const seen = new Set<string>();
  for await (const { page } of pages<RecordingsPage>(
    run.api,
    listing.what,
    userPath(owner.id, '/recordings'),
    listing.query,
    null,
    run.now,
  )) {
    for (const m of page.meetings ?? []) {
      if (m?.uuid && !seen.has(m.uuid) && (!listing.trash || inReach(run, m))) {
        seen.add(m.uuid);
        meetings.push(m);
      }
    }
  }
  return meetings;
}

/** Trash listings ignore dates: a trashed meeting is taken when it started within the collection's lookback. */
function inReach(run: ZoomRun, m: RecordedMeeting): boolean {
  const start = parseTime(m.start_time);
  return start === undefined || start >= run.lookbackStart;
}

/**
 * The meeting's AI summary when its events need it: asked for before the meeting's metadata is handed over, so
 * that the metadata can say it does not exist.
 */
function summaryFor(
  run: ZoomRun,
  owner: Owner,
  m: RecordedMeeting,
  trash: Listing['trash'],
): Promise<SummaryLookup | undefined> {
  const wanted = trash !== 'recording_file' && run.content.has('AI-meeting-notes');
  return wanted ? summaryOf(run, owner, m.uuid) : Promise.resolve(undefined);
}

async function* meetingEvents(
  run: ZoomRun,
  owner: Owner,
  m: RecordedMeeting,
  trash: Listing['trash'],
  summary: SummaryLookup | undefined,
): AsyncGenerator<CollectEvent> {
  // Files trashed one by one belong to a meeting the ordinary listing shows (with its other files): only the files.
  const whole = trash !== 'recording_file';
  const notPresent = summary?.status === 'missing' ? { ai_meeting_notes: summary.reason } : undefined;
  const deletedTime = m.recording_files?.find((f) => f.deleted_time)?.deleted_time;
  if (whole)
    yield recordEvent(
      meetingItem(owner, m, notPresent, trash && deletedTime ? { in_trash: true, deleted_time: deletedTime } : {}),
      m,
    );
  let excluded = 0;
  for (const f of m.recording_files ?? []) {
    const mapped = fileKind(f);
    if (!mapped || !run.content.has(mapped.content)) {
      excluded += 1;
      continue;
    }
    const item = fileItem(owner, m, f, mapped.kind);
    // Zoom lists files that are still being processed; a later run (within the overlap) picks them up.
    if (f.status !== undefined && f.status !== 'completed') {
      run.ctx.log.debug({ source_id: item.sourceId, status: f.status }, 'recording file not ready; skipped');
      continue;
    }
    yield* fileEvents(run, owner, item, f);
  }
  if (excluded > 0) yield { type: 'excluded', custodian: owner.id, count: excluded };
  if (whole && run.content.has('audio')) yield* participantAudio(run, owner, m);
  if (summary) yield* summaryEvents(owner, m, summary);
}

function* fileEvents(run: ZoomRun, owner: Owner, item: ItemInput, f: RecordingFile): Generator<CollectEvent> {
  if (!f.download_url) {
    yield {
      type: 'error',
      reason: 'Zoom listed a recording file without a download_url',
      sourceId: item.sourceId,
      kind: item.kind,
      name: item.path,
      custodian: owner.id,
      retry: { item },
    };
    return;
  }
  yield {
    type: 'item',
    item,
    content: downloadSource(
      run.ctx.http,
      f.download_url,
      typeof f.file_size === 'number' ? f.file_size : undefined,
      run.isZoomHost,
    ),
  };
}

/**
 * Participant audio is listed only by GET /meetings/{uuid}/recordings (Correction Z1). The users' listing counts
 * those files in `recording_count`, so the meeting is asked for only when the count says there is more than the
 * listing showed (or the count is missing).
 */
async function* participantAudio(run: ZoomRun, owner: Owner, m: RecordedMeeting): AsyncGenerator<CollectEvent> {
  if (typeof m.recording_count === 'number' && m.recording_count <= (m.recording_files ?? []).length) return;
  let full: RecordedMeeting;
  try {
    full = await scoped("reading a meeting's recordings", () =>
      run.api.get<RecordedMeeting>(meetingPath(m.uuid, '/recordings')),
    );
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404) return;
    if (!isPieceFailure(err)) throw err;
    const name = `${meetingFolder(owner, m)}/participant audio`;
    yield {
      type: 'error',
      reason: `reading the meeting's participant audio failed: ${err.message}`,
      custodian: owner.id,
      kind: 'participant_audio',
      sourceId: m.uuid,
      name,
    };
    return;
  }
  for (const f of full.participant_audio_files ?? []) {
    if (!f?.id || (f.status !== undefined && f.status !== 'completed')) continue;
    yield* fileEvents(run, owner, participantAudioItem(owner, m, { ...f, id: f.id }), f);
  }
}

/** With the account's summaries list at hand, a meeting it does not name has none: no request for it. */
async function summaryOf(run: ZoomRun, owner: Owner, uuid: string): Promise<SummaryLookup> {
  const listed = run.summaries?.[owner.id];
  if (run.summaries && !listed?.some((s) => s.meeting_uuid === uuid)) {
    return {
      status: 'missing',
      reason: "the meeting has no AI summary (the account's meeting summaries list does not name it)",
    };
  }
  return meetingSummary(run, uuid);
}

export type SummaryLookup =
  | { status: 'found'; summary: MeetingSummary }
  | { status: 'missing'; reason: string }
  | { status: 'failed'; reason: string };

/** The summary item, its absence, or its failure (kept on the retry list). */
export function* summaryEvents(owner: Owner, m: RecordedMeeting, lookup: SummaryLookup): Generator<CollectEvent> {
  const name = `${meetingFolder(owner, m)}/ai_meeting_notes.json`;
  if (lookup.status === 'found') {
    const bytes = Buffer.from(JSON.stringify(lookup.summary, null, 2), 'utf8');
    yield { type: 'item', item: summaryItem(owner, m, lookup.summary, bytes), content: bufferSource(bytes) };
  } else if (lookup.status === 'missing') {
    yield {
      type: 'not_present',
      custodian: owner.id,
      kind: 'ai_meeting_notes',
      sourceId: m.uuid,
      name,
      reason: lookup.reason,
    };
  } else {
    const retry: SummaryRetry = {
      owner,
      meeting: { uuid: m.uuid, id: m.id, topic: m.topic, start_time: m.start_time },
    };
    yield {
      type: 'error',
      reason: lookup.reason,
      custodian: owner.id,
      kind: 'ai_meeting_notes',
      sourceId: m.uuid,
      name,
      retry,
    };
  }
}

/** What a following run needs to ask for a meeting's summary again. */
export interface SummaryRetry {
  owner: Owner;
  meeting: Pick<RecordedMeeting, 'uuid' | 'id' | 'topic' | 'start_time'>;
}

/**
 * The AI Companion summary of one meeting instance (keyed by UUID). Any 404, whatever Zoom's code, means the
 * meeting has none (Zoom's codes refine the message only); other failures are this piece's, except a refused
 * scope or refused credentials, which concern every meeting.
 */
export async function meetingSummary(run: Pick<ZoomRun, 'api'>, uuid: string): Promise<SummaryLookup> {
  try {
    return {
      status: 'found',
      summary: await scoped('reading a meeting summary', () =>
        run.api.get<MeetingSummary>(meetingPath(uuid, '/meeting_summary')),
      ),
    };
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404) {
      const code = err.providerCode === undefined ? '' : `, code ${err.providerCode}`;
      return { status: 'missing', reason: `the meeting has no AI summary (Zoom answered 404${code}: ${err.message})` };
    }
    if (!isPieceFailure(err)) throw err;
    return { status: 'failed', reason: `reading the AI summary failed: ${(err as Error).message}` };
  }
}
