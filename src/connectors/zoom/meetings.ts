// One owner's recorded meetings: the meeting's metadata always, the files and the AI summary as selected.
import type { CollectEvent } from '../types.ts';
import { isMissing, meetingPath, pages, scoped, userPath } from './api.ts';
import { bufferSource, downloadSource } from './content.ts';
import { fileItem, fileKind, meetingItem, summaryItem, type Owner } from './items.ts';
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
  yield { type: 'item', item: meetingItem(owner, m) };
  for (const f of m.recording_files ?? []) {
    const mapped = fileKind(f);
    if (!mapped || !run.content.has(mapped.content)) continue;
    const item = fileItem(owner, m, f, mapped.kind);
    // Zoom lists files that are still being processed; a later run (within the overlap) picks them up.
    if (f.status !== undefined && f.status !== 'completed') {
      run.ctx.log.debug({ source_id: item.sourceId, status: f.status }, 'recording file not ready; skipped');
      continue;
    }
    if (!f.download_url) {
      yield { type: 'error', reason: 'Zoom listed a recording file without a download_url', sourceId: item.sourceId, kind: mapped.kind };
      continue;
    }
    yield { type: 'item', item, content: downloadSource(run.ctx.http, f.download_url, typeof f.file_size === 'number' ? f.file_size : undefined, run.isZoomHost) };
  }
  if (run.content.has('AI-meeting-notes')) {
    const summary = await meetingSummary(run, m.uuid);
    if (summary) {
      const bytes = Buffer.from(JSON.stringify(summary, null, 2), 'utf8');
      yield { type: 'item', item: summaryItem(owner, m, summary, bytes), content: bufferSource(bytes) };
    }
  }
}

/** The AI Companion summary of one meeting instance (keyed by UUID); null when the meeting has none. */
async function meetingSummary(run: ZoomRun, uuid: string): Promise<MeetingSummary | null> {
  try {
    return await scoped('reading a meeting summary', () => run.api.get<MeetingSummary>(meetingPath(uuid, '/meeting_summary')));
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}
