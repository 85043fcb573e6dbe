// One owner's recorded meetings: the meeting's metadata always, the files and the AI summary as selected.
import type { CollectEvent } from '../types.ts';
import { ProviderError } from '../../provider/provider-http.ts';
import { isPieceFailure, meetingPath, pages, scoped, userPath } from './api.ts';
import { bufferSource, downloadSource } from './content.ts';
import { fileItem, fileKind, meetingFolder, meetingItem, summaryItem, type Owner } from './items.ts';
import { recordEvent } from './record.ts';
import type { ZoomRun } from './run.ts';
import type { Position } from './state.ts';
import type { MeetingSummary, RecordedMeeting, RecordingsPage } from './wire.ts';
import { isoDate, monthWindows, startOfDay } from './windows.ts';

/**
 * A window's whole listing is read before any of its items is handed over: the engine downloads each file
 * before asking for the next event, which can take far longer than a page token's 15 minutes. A resumed run
 * lists the window again and skips the meetings it had finished when the listing still starts the same way.
 */
export async function* collectRecordings(run: ZoomRun, owner: Owner, pos: Position): AsyncGenerator<CollectEvent> {
  const windows = monthWindows(startOfDay(run.ownerSince(owner.id)), run.state.startedAt);
  for (; pos.window < windows.length; pos.window++) {
    const w = windows[pos.window];
    const query = { from: isoDate(w.start), to: isoDate(w.end), page_size: 300 };
    const meetings: RecordedMeeting[] = [];
    const seen = new Set<string>();
    for await (const { page } of pages<RecordingsPage>(run.api, 'listing recordings', userPath(owner.id, '/recordings'), query, null, run.now)) {
      for (const m of page.meetings ?? []) {
        if (m?.uuid && !seen.has(m.uuid)) {
          seen.add(m.uuid);
          meetings.push(m);
        }
      }
    }
    const skip = pos.skip && meetings[pos.skip - 1]?.uuid === pos.lastUuid ? pos.skip : 0;
    for (let i = skip; i < meetings.length; i++) {
      yield* meetingEvents(run, owner, meetings[i]);
      pos.skip = i + 1;
      pos.lastUuid = meetings[i].uuid;
      yield run.checkpoint();
    }
    pos.skip = 0;
    delete pos.lastUuid;
  }
}

async function* meetingEvents(run: ZoomRun, owner: Owner, m: RecordedMeeting): AsyncGenerator<CollectEvent> {
  // The summary is asked for first, so that the meeting's metadata can say it does not exist.
  const summary = run.content.has('AI-meeting-notes') ? await meetingSummary(run, m.uuid) : undefined;
  const notPresent = summary?.status === 'missing' ? { ai_meeting_notes: summary.reason } : undefined;
  yield recordEvent(meetingItem(owner, m, notPresent), m);
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
    if (!f.download_url) {
      yield { type: 'error', reason: 'Zoom listed a recording file without a download_url', sourceId: item.sourceId, kind: mapped.kind, name: item.path, custodian: owner.id, retry: { item } };
      continue;
    }
    yield { type: 'item', item, content: downloadSource(run.ctx.http, f.download_url, typeof f.file_size === 'number' ? f.file_size : undefined, run.isZoomHost) };
  }
  if (excluded > 0) yield { type: 'excluded', custodian: owner.id, count: excluded };
  if (summary) yield* summaryEvents(owner, m, summary);
}

export type SummaryLookup = { status: 'found'; summary: MeetingSummary } | { status: 'missing'; reason: string } | { status: 'failed'; reason: string };

/** The summary item, its absence, or its failure (kept on the retry list). */
export function* summaryEvents(owner: Owner, m: RecordedMeeting, lookup: SummaryLookup): Generator<CollectEvent> {
  const name = `${meetingFolder(owner, m)}/ai_meeting_notes.json`;
  if (lookup.status === 'found') {
    const bytes = Buffer.from(JSON.stringify(lookup.summary, null, 2), 'utf8');
    yield { type: 'item', item: summaryItem(owner, m, lookup.summary, bytes), content: bufferSource(bytes) };
  } else if (lookup.status === 'missing') {
    yield { type: 'not_present', custodian: owner.id, kind: 'ai_meeting_notes', sourceId: m.uuid, name, reason: lookup.reason };
  } else {
    const retry: SummaryRetry = { owner, meeting: { uuid: m.uuid, id: m.id, topic: m.topic, start_time: m.start_time } };
    yield { type: 'error', reason: lookup.reason, custodian: owner.id, kind: 'ai_meeting_notes', sourceId: m.uuid, name, retry };
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
    return { status: 'found', summary: await scoped('reading a meeting summary', () => run.api.get<MeetingSummary>(meetingPath(uuid, '/meeting_summary'))) };
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404) {
      const code = err.providerCode === undefined ? '' : `, code ${err.providerCode}`;
      return { status: 'missing', reason: `the meeting has no AI summary (Zoom answered 404${code}: ${err.message})` };
    }
    if (!isPieceFailure(err)) throw err;
    return { status: 'failed', reason: `reading the AI summary failed: ${(err as Error).message}` };
  }
}
