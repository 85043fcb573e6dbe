// The retry list: pieces earlier runs could not collect, asked for again directly (the listing that found
// them may lie behind the owner's high-water mark by now).
import { ProviderError } from '../../provider/provider-http.ts';
import type { CollectContext, CollectEvent, ItemInput, RetryPiece } from '../types.ts';
import { isPieceFailure, meetingPath, scoped, ZoomApi } from './api.ts';
import { retryChatFile } from './chat-retry.ts';
import { downloadSource } from './content.ts';
import { fileSourceId } from './items.ts';
import { meetingSummary, summaryEvents, type SummaryRetry } from './meetings.ts';
import type { RecordedMeeting } from './wire.ts';

export function retryZoomPieces(opts: { apiUrl: string; isZoomHost(url: string): boolean }) {
  return async function* retry(ctx: CollectContext, pieces: RetryPiece[]): AsyncGenerator<CollectEvent> {
    const api = new ZoomApi(ctx.http, opts.apiUrl, ctx.signal);
    for (const p of pieces) {
      const piece = p.piece as Partial<SummaryRetry> & { item?: ItemInput };
      if (p.kind === 'ai_meeting_notes' && piece?.owner && piece.meeting?.uuid) {
        yield* summaryEvents(piece.owner, piece.meeting as RecordedMeeting, await meetingSummary({ api }, piece.meeting.uuid));
      } else if (p.kind === 'chat_file' && piece?.item) {
        yield* retryChatFile(api, opts.isZoomHost, p, piece.item);
      } else if (piece?.item && typeof piece.item.metadata?.meeting_uuid === 'string') {
        yield* retryFile(api, opts.isZoomHost, p, piece.item, piece.item.metadata.meeting_uuid);
      }
    }
  };
}

async function* retryFile(api: ZoomApi, isZoomHost: (url: string) => boolean, p: RetryPiece, item: ItemInput, uuid: string): AsyncGenerator<CollectEvent> {
  const gone = (reason: string): CollectEvent[] => [
    { type: 'not_present', custodian: p.unit, kind: p.kind, sourceId: p.sourceId, name: p.name, reason },
    { type: 'deleted', kind: p.kind, sourceId: p.sourceId },
  ];
  let meeting: RecordedMeeting;
  try {
    meeting = await scoped('reading a meeting\'s recordings', () => api.get<RecordedMeeting>(meetingPath(uuid, '/recordings')));
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404) return yield* gone(`the meeting's recordings are gone (Zoom answered 404: ${err.message})`);
    if (!isPieceFailure(err)) throw err;
    return yield { type: 'error', reason: `reading the meeting's recordings failed: ${err.message}`, kind: p.kind, sourceId: p.sourceId, name: p.name, custodian: p.unit, retry: { item } };
  }
  const file = (meeting.recording_files ?? []).find((f) => fileSourceId(meeting, f) === p.sourceId);
  if (!file) return yield* gone('the recording file is no longer listed for its meeting');
  if (!file.download_url) {
    return yield { type: 'error', reason: 'Zoom listed a recording file without a download_url', kind: p.kind, sourceId: p.sourceId, name: p.name, custodian: p.unit, retry: { item } };
  }
  yield { type: 'item', item, content: downloadSource(api.http, file.download_url, typeof file.file_size === 'number' ? file.file_size : undefined, isZoomHost) };
}
