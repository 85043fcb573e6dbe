// Files attached to Team Chat messages (issue 20): kind `chat_file`, selected with their conversation, downloaded
// from their `download_url` with the OAuth bearer token like a recording file, and tied to their message by
// `metadata.parent_source_id`.
import type { CollectEvent, ItemInput } from '../types.ts';
import { downloadSource } from './content.ts';
import { segment, type Conversation, type Owner } from './items.ts';
import type { ChatMessage } from './wire.ts';

export interface MessageFile {
  file_id?: string;
  file_name?: string;
  file_size?: number;
  download_url?: string;
}

/** `files[]`, or the legacy single `file_id`/`file_name`/`file_size`/`download_url` of older messages. */
export function messageFiles(msg: ChatMessage): MessageFile[] {
  if (Array.isArray(msg.files)) return msg.files.filter((f): f is MessageFile => typeof f === 'object' && f !== null);
  if (typeof msg.file_id === 'string' && msg.file_id !== '') {
    return [
      {
        file_id: msg.file_id,
        file_name: msg.file_name,
        file_size: msg.file_size,
        download_url: typeof msg.download_url === 'string' ? msg.download_url : undefined,
      },
    ];
  }
  return [];
}

const MIME: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  mp4: 'video/mp4',
  m4a: 'audio/mp4',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  zip: 'application/zip',
};

/** A file without an id of its own is keyed by its message and its place there. */
function fileSourceId(msg: ChatMessage, f: MessageFile, index: number): string {
  return f.file_id || `${msg.id}|file|${index}`;
}

export function chatFileItem(message: ItemInput, msg: ChatMessage, f: MessageFile, index: number): ItemInput {
  const sourceId = fileSourceId(msg, f, index);
  const name = segment(f.file_name, sourceId);
  const ext = /\.([A-Za-z0-9]{1,8})$/.exec(name)?.[1]?.toLowerCase();
  return {
    kind: 'chat_file',
    sourceId,
    name,
    path: `${message.path}/${name}`,
    custodian: message.custodian,
    size: typeof f.file_size === 'number' ? f.file_size : null,
    mimeType: (ext && MIME[ext]) ?? null,
    createdAt: message.createdAt ?? null,
    modifiedAt: null,
    // A file shared in a chat does not change; another file is another id.
    version: `${f.file_size ?? ''}`,
    text: null,
    metadata: {
      parent_source_id: msg.id,
      parent_kind: message.kind,
      conversation_type: message.metadata.conversation_type,
      conversation_id: message.metadata.conversation_id,
      conversation_name: message.metadata.conversation_name,
      ...(message.metadata.collected_through !== undefined && {
        collected_through: message.metadata.collected_through,
      }),
      file_id: f.file_id ?? null,
      file_name: f.file_name ?? null,
      file_size: f.file_size ?? null,
      sender: msg.sender ?? null,
      date_time: message.createdAt ?? null,
    },
  };
}

/** The message's files as items with their bytes; one without a download_url is a failed piece. */
export function* chatFileEvents(
  owner: Owner,
  c: Conversation,
  message: ItemInput,
  msg: ChatMessage,
  download: { http: Parameters<typeof downloadSource>[0]; isZoomHost(url: string): boolean },
): Generator<CollectEvent> {
  const files = messageFiles(msg);
  for (let i = 0; i < files.length; i++) {
    const f = files[i];
    const item = chatFileItem(message, msg, f, i);
    if (!f.download_url) {
      const where = c.type === 'channel' ? `channel ${c.name}` : `the conversation with ${c.name}`;
      yield {
        type: 'error',
        reason: `Zoom listed a file of a message in ${where} without a download_url`,
        kind: 'chat_file',
        sourceId: item.sourceId,
        name: item.path,
        custodian: item.custodian ?? owner.id,
        retry: { item },
      };
      continue;
    }
    yield {
      type: 'item',
      item,
      content: downloadSource(
        download.http,
        f.download_url,
        typeof f.file_size === 'number' ? f.file_size : undefined,
        download.isZoomHost,
      ),
    };
  }
}
