// The retry list: pieces earlier runs could not collect, asked for again directly (the listing that found
// them may lie behind the owner's high-water mark by now).
import { ProviderError } from '../../provider/provider-error.ts';
import type { CollectContext, CollectEvent, ItemInput, RetryPiece } from '../types.ts';
import { isPieceFailure, meetingPath, pages, scoped, userPath, ZoomApi, type Query } from './api.ts';
import { retryChatFile } from './chat-retry.ts';
import { downloadSource } from './content.ts';
import { fileSourceId } from './items.ts';
import { meetingSummary, summaryEvents, type SummaryRetry } from './meetings.ts';
import type { RecordedMeeting, RecordingFile, RecordingsPage } from './wire.ts';
import { DAY_MS, isoDate, parseTime } from './windows.ts';

export function retryZoomPieces(opts: { apiUrl: string; isZoomHost(url: string): boolean }) {
  return async function* retry(ctx: CollectContext, pieces: RetryPiece[]): AsyncGenerator<CollectEvent> {
    const api = new ZoomApi(ctx.http, opts.apiUrl, ctx.signal);
    for (const p of pieces) {
      const piece = p.piece as Partial<SummaryRetry> & { item?: ItemInput };
      if (p.kind === 'ai_meeting_notes' && piece?.owner && piece.meeting?.uuid) {
        yield* summaryEvents(piece.owner, piece.meeting, await meetingSummary({ api }, piece.meeting.uuid));
      } else if (p.kind === 'chat_file' && piece?.item) {
        yield* retryChatFile(api, opts.isZoomHost, p, piece.item);
      } else if (piece?.item && typeof piece.item.metadata?.meeting_uuid === 'string') {
        yield* retryFile(api, opts.isZoomHost, p, piece.item, piece.item.metadata.meeting_uuid);
      }
    }
  };
}

async function* retryFile(
  api: ZoomApi,
  isZoomHost: (url: string) => boolean,
  p: RetryPiece,
  item: ItemInput,
  uuid: string,
): AsyncGenerator<CollectEvent> {
  const gone = (reason: string): CollectEvent[] => [
    { type: 'not_present', custodian: p.unit, kind: p.kind, sourceId: p.sourceId, name: p.name, reason },
    { type: 'deleted', kind: p.kind, sourceId: p.sourceId },
  ];
  let files: RecordingFile[];
  try {
    files =
      p.kind === 'participant_audio'
        ? ((
            await scoped("reading a meeting's recordings", () =>
              api.get<RecordedMeeting>(meetingPath(uuid, '/recordings')),
            )
          ).participant_audio_files ?? [])
        : await listedFiles(api, p.unit, uuid, item);
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404)
      return yield* gone(`the meeting's recordings are gone (Zoom answered 404: ${err.message})`);
    if (!isPieceFailure(err)) throw err;
    yield {
      type: 'error',
      reason: `reading the meeting's recordings failed: ${err.message}`,
      kind: p.kind,
      sourceId: p.sourceId,
      name: p.name,
      custodian: p.unit,
      retry: { item },
    };
    return;
  }
  const file = files.find((f) => (p.kind === 'participant_audio' ? f.id : fileSourceId({ uuid }, f)) === p.sourceId);
  if (!file) return yield* gone('the recording file is no longer listed for its meeting');
  if (!file.download_url) {
    yield {
      type: 'error',
      reason: 'Zoom listed a recording file without a download_url',
      kind: p.kind,
      sourceId: p.sourceId,
      name: p.name,
      custodian: p.unit,
      retry: { item },
    };
    return;
  }
  yield {
    type: 'item',
    item,
    content: downloadSource(
      api.http,
      file.download_url,
      typeof file.file_size === 'number' ? file.file_size : undefined,
      isZoomHost,
    ),
  };
}

/**
 * A recording file's meeting as the host's recordings listings show it (the same scope as the listing that found
 * it, not the meeting endpoint's): the days around the recording, narrowed to the meeting, then the trash.
 */
async function listedFiles(api: ZoomApi, host: string, uuid: string, item: ItemInput): Promise<RecordingFile[]> {
  const meetingId = typeof item.metadata?.meeting_id === 'number' ? item.metadata.meeting_id : undefined;
  const at = parseTime(item.metadata?.recording_start) ?? parseTime(item.createdAt);
  const queries: Query[] = [];
  if (at !== undefined)
    queries.push({ from: isoDate(at - DAY_MS), to: isoDate(at + DAY_MS), meeting_id: meetingId, page_size: 300 });
  queries.push(
    { trash: true, trash_type: 'meeting_recordings', page_size: 300 },
    { trash: true, trash_type: 'recording_file', page_size: 300 },
  );
  const files: RecordingFile[] = [];
  for (const query of queries) {
    for await (const { page } of pages<RecordingsPage>(
      api,
      'listing recordings',
      userPath(host, '/recordings'),
      query,
      null,
      () => Date.now(),
    )) {
      for (const m of page.meetings ?? []) if (m?.uuid === uuid) files.push(...(m.recording_files ?? []));
    }
    if (files.length > 0) break;
  }
  return files;
}
