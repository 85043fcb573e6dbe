// A chat file whose download failed, asked for again: its message is listed again (a window of a few seconds
// around it, through the owner who listed it) for a fresh download_url, as the listing would.
import type { CollectEvent, ItemInput, RetryPiece } from '../types.ts';
import { chatUserPath, isPieceFailure, pages, type ZoomApi } from './api.ts';
import { messageFiles } from './chat-files.ts';
import { downloadSource } from './content.ts';
import type { MessagesPage } from './wire.ts';
import { isoSeconds, parseTime } from './windows.ts';

export async function* retryChatFile(
  api: ZoomApi,
  isZoomHost: (url: string) => boolean,
  p: RetryPiece,
  item: ItemInput,
): AsyncGenerator<CollectEvent> {
  const m = item.metadata;
  const at = parseTime(m.date_time);
  const through = typeof m.collected_through === 'string' ? m.collected_through : item.custodian;
  const fail = (reason: string): CollectEvent => ({
    type: 'error',
    reason,
    kind: p.kind,
    sourceId: p.sourceId,
    name: p.name,
    custodian: p.unit,
    retry: { item },
  });
  if (at === undefined || !through || typeof m.conversation_id !== 'string' || typeof m.parent_source_id !== 'string') {
    yield fail('the chat file cannot be asked for again: its message is not known well enough');
    return;
  }
  const select =
    m.conversation_type === 'channel' ? { to_channel: m.conversation_id } : { to_contact: m.conversation_id };
  const query = {
    ...select,
    from: isoSeconds(at - 1000),
    to: isoSeconds(at + 2000),
    page_size: 50,
    include_deleted_and_edited_message: true,
  };
  try {
    for await (const { page } of pages<MessagesPage>(
      api,
      'listing chat messages',
      chatUserPath(through, '/messages'),
      query,
      null,
      () => Date.now(),
    )) {
      const msg = (page.messages ?? []).find((x) => x?.id === m.parent_source_id);
      if (!msg) continue;
      const file = messageFiles(msg).find((f, i) => (f.file_id || `${msg.id}|file|${i}`) === p.sourceId);
      if (!file?.download_url) break;
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
      return;
    }
  } catch (err) {
    if (!isPieceFailure(err)) throw err;
    yield fail(`listing the chat file's message again failed: ${err.message}`);
    return;
  }
  // A narrow re-listing that misses it proves no deletion (a member's view, the six-month window): tried again.
  yield fail('the chat file was not found on its message when listed again');
}
