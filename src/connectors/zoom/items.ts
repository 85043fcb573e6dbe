// Zoom objects -> ItemInput: kinds, stable source ids, paths, versions and searchable text.
import crypto from 'node:crypto';
import type { ContentType } from '../../domain/filters/conf.ts';
import { canonicalJson } from '../../provider/fingerprint.ts';
import type { ItemInput } from '../types.ts';
import type { ChatMessage, MeetingSummary, RecordedMeeting, RecordingFile } from './wire.ts';

/** The `conf` kinds of the fixed items contract (issue 3); nothing else is emitted. */
export const KINDS = [
  'meeting',
  'recording_video',
  'recording_audio',
  'transcript',
  'meeting_chat',
  'ai_meeting_notes',
  'chat_message',
  'channel_message',
  // issue 20: a file attached to a chat message (its message: metadata.parent_source_id)
  'chat_file',
  'participant_audio',
  // issue 20: an export of a Team Chat legal-hold matter (a zip), with a `preservation` grant
  'legal_hold_file',
] as const;

export interface Owner {
  id: string;
  email: string;
  /** the user's display name (else first and last name), when Zoom said it */
  name?: string | null;
}

/** Which item kind a recording file becomes, and which content selection switches it on. */
const FILE_KINDS: Record<string, { kind: string; content: ContentType }> = {
  MP4: { kind: 'recording_video', content: 'video' },
  M4A: { kind: 'recording_audio', content: 'audio' },
  TRANSCRIPT: { kind: 'transcript', content: 'transcript' },
  // Closed captions and the timeline follow `transcript` (issue 4) and are transcripts to the contract, which has
  // no kind of their own; metadata.file_type (TRANSCRIPT, CC, TIMELINE) tells them apart.
  CC: { kind: 'transcript', content: 'transcript' },
  TIMELINE: { kind: 'transcript', content: 'transcript' },
  TB: { kind: 'transcript', content: 'transcript' },
  CHAT: { kind: 'meeting_chat', content: 'chat' },
  CHAT_MESSAGE: { kind: 'meeting_chat', content: 'chat' },
  SUMMARY: { kind: 'ai_meeting_notes', content: 'AI-meeting-notes' },
};

const MIME: Record<string, string> = {
  MP4: 'video/mp4',
  M4A: 'audio/mp4',
  VTT: 'text/vtt',
  TXT: 'text/plain',
  JSON: 'application/json',
  CSV: 'text/csv',
  JPG: 'image/jpeg',
};

export function fileKind(file: RecordingFile): { kind: string; content: ContentType } | undefined {
  return FILE_KINDS[(file.file_type ?? '').toUpperCase()];
}

/**
 * CC and TIMELINE entries have no `id`: a key from the meeting, the file type and the recording start stands in.
 * The file type in the key keeps them apart from the meeting's TRANSCRIPT, which shares their kind.
 */
export function fileSourceId(meeting: RecordedMeeting, file: RecordingFile): string {
  return file.id ?? `${file.meeting_id ?? meeting.uuid}|${file.file_type ?? ''}|${file.recording_start ?? ''}`;
}

/** Zoom names the timeline file TIMELINE or (older recordings) TB: one value for consumers to test. */
function normalFileType(fileType: string | undefined): string | null {
  if (!fileType) return null;
  const upper = fileType.toUpperCase();
  return upper === 'TB' ? 'TIMELINE' : upper;
}

export function shortHash(value: unknown): string {
  const text = typeof value === 'string' ? value : canonicalJson(value);
  return crypto.createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** A path segment: no slashes or control characters, bounded length. */
export function segment(text: string | undefined, fallback: string): string {
  const clean = (text ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/[/\\]/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 120);
  return clean || fallback;
}

function stamp(iso: string | undefined): string {
  return iso
    ? iso
        .replace(/\.\d+Z$/, 'Z')
        .replace(/-/g, '')
        .replace(/:/g, '')
        .replace('T', '-')
        .replace('Z', '')
    : 'undated';
}

export function meetingFolder(owner: Owner, m: RecordedMeeting): string {
  const when = m.start_time ? m.start_time.slice(0, 16).replace('T', ' ').replace(':', '.') : 'undated';
  return `/${segment(owner.email, owner.id)}/meetings/${segment(`${when} ${m.topic ?? ''}`, m.uuid)}`;
}

/** `notPresent`: optional pieces the meeting does not have (e.g. `{ai_meeting_notes: why}`), recorded in its metadata. */
export function meetingItem(
  owner: Owner,
  m: RecordedMeeting,
  notPresent?: Record<string, string>,
  facts: Record<string, unknown> = {},
): ItemInput {
  const metadata = {
    uuid: m.uuid,
    meeting_id: m.id ?? null,
    host_id: m.host_id ?? owner.id,
    host_email: owner.email,
    topic: m.topic ?? null,
    type: m.type ?? null,
    start_time: m.start_time ?? null,
    duration: m.duration ?? null,
    timezone: m.timezone ?? null,
    total_size: m.total_size ?? null,
    recording_count: m.recording_count ?? null,
    recording_files: (m.recording_files ?? []).map((f) => ({
      id: fileSourceId(m, f),
      file_type: f.file_type ?? null,
      file_extension: f.file_extension ?? null,
      recording_type: f.recording_type ?? null,
      file_size: f.file_size ?? null,
      recording_start: f.recording_start ?? null,
      recording_end: f.recording_end ?? null,
    })),
    ...(notPresent && { not_present: notPresent }),
    ...facts,
  };
  return {
    kind: 'meeting',
    sourceId: m.uuid,
    name: segment(m.topic, m.uuid),
    path: meetingFolder(owner, m),
    custodian: owner.id,
    size: null,
    mimeType: null,
    createdAt: m.start_time ?? null,
    modifiedAt: null,
    version: shortHash(metadata),
    text: m.topic ?? null,
    metadata,
  };
}

export function fileItem(owner: Owner, m: RecordedMeeting, f: RecordingFile, kind: string): ItemInput {
  const ext = (f.file_extension ?? '').toUpperCase();
  const type = (f.recording_type ?? f.file_type ?? 'file').toLowerCase();
  const name = `${stamp(f.recording_start)}_${segment(type, 'file')}${ext ? `.${ext.toLowerCase()}` : ''}`;
  return {
    kind,
    sourceId: fileSourceId(m, f),
    name,
    path: `${meetingFolder(owner, m)}/${name}`,
    custodian: owner.id,
    size: typeof f.file_size === 'number' ? f.file_size : null,
    mimeType: MIME[ext] ?? null,
    createdAt: f.recording_start ?? null,
    modifiedAt: f.recording_end ?? null,
    // Finished recording files do not change; a re-processed one comes back with another size or end time.
    version: `${f.file_size ?? ''}|${f.recording_end ?? ''}|${f.status ?? ''}`,
    text: null,
    metadata: {
      meeting_uuid: m.uuid,
      meeting_id: m.id ?? null,
      topic: m.topic ?? null,
      file_type: normalFileType(f.file_type),
      file_extension: f.file_extension ?? null,
      recording_type: f.recording_type ?? null,
      recording_start: f.recording_start ?? null,
      recording_end: f.recording_end ?? null,
      status: f.status ?? null,
      ...trashFacts(f),
    },
  };
}

/** A file listed from the trash: still at the source (Zoom purges it after 30 days), marked as trashed. */
export function trashFacts(f: { deleted_time?: string }): Record<string, unknown> {
  return f.deleted_time ? { in_trash: true, deleted_time: f.deleted_time } : {};
}

/** One participant's own audio track (GET /meetings/{uuid}/recordings `participant_audio_files`), held for the host. */
export function participantAudioItem(owner: Owner, m: RecordedMeeting, f: RecordingFile & { id: string }): ItemInput {
  const item = fileItem(
    owner,
    m,
    { ...f, file_type: 'M4A', file_extension: f.file_extension ?? 'M4A' },
    'participant_audio',
  );
  const name = `${stamp(f.recording_start)}_participant_audio_${segment(f.file_name, f.id)}.m4a`;
  return {
    ...item,
    name,
    path: `${meetingFolder(owner, m)}/${name}`,
    mimeType: 'audio/mp4',
    metadata: { ...item.metadata, recording_type: null, file_name: f.file_name ?? null },
  };
}

export function summaryItem(owner: Owner, m: RecordedMeeting, s: MeetingSummary, bytes: Buffer): ItemInput {
  return {
    kind: 'ai_meeting_notes',
    sourceId: m.uuid,
    name: 'ai_meeting_notes.json',
    path: `${meetingFolder(owner, m)}/ai_meeting_notes.json`,
    custodian: owner.id,
    size: bytes.length,
    mimeType: 'application/json',
    createdAt: s.summary_created_time ?? null,
    modifiedAt: s.summary_last_modified_time ?? null,
    version: shortHash(bytes.toString('utf8')),
    text:
      [s.summary_title, s.summary_content ?? s.summary_overview]
        .filter((t) => typeof t === 'string' && t !== '')
        .join('\n\n') || null,
    metadata: {
      meeting_uuid: m.uuid,
      meeting_id: m.id ?? null,
      topic: s.meeting_topic ?? m.topic ?? null,
      summary_title: s.summary_title ?? null,
      summary_created_time: s.summary_created_time ?? null,
      summary_last_modified_time: s.summary_last_modified_time ?? null,
    },
  };
}

export interface Conversation {
  type: 'one-to-one' | 'channel';
  id: string;
  name: string;
  isPrivate?: boolean;
}

export function messageItem(owner: Owner, c: Conversation, msg: ChatMessage): ItemInput {
  const when = msg.date_time ?? (typeof msg.timestamp === 'number' ? new Date(msg.timestamp).toISOString() : undefined);
  const day = when ? when.slice(0, 10) : 'undated';
  const folder = c.type === 'one-to-one' ? 'one-to-one' : 'channels';
  const sender = msg.sender_display_name ?? msg.sender ?? 'unknown sender';
  const status = msg.status ?? 'Normal';
  // Only the files' facts: a download_url may carry a token (the files are items of their own, kind chat_file).
  const files = (
    Array.isArray(msg.files)
      ? msg.files
      : msg.file_id
        ? [{ file_id: msg.file_id, file_name: msg.file_name, file_size: msg.file_size }]
        : []
  ).map((f) => ({ file_id: f?.file_id ?? null, file_name: f?.file_name ?? null, file_size: f?.file_size ?? null }));
  return {
    kind: c.type === 'one-to-one' ? 'chat_message' : 'channel_message',
    sourceId: msg.id,
    name: segment(`${when ?? ''} ${sender}`, msg.id),
    path: `/${segment(owner.email, owner.id)}/chats/${folder}/${segment(c.name, c.id)}/${day}/${msg.id}`,
    // A channel is a unit of its own: its messages are the channel's, read through one of its members.
    custodian: c.type === 'channel' ? c.id : owner.id,
    size: null,
    mimeType: null,
    createdAt: when ?? null,
    modifiedAt: null,
    // An edit or a deletion changes the status (and the text): a new version of the same message.
    version: `${status}:${shortHash(msg.message ?? '')}`,
    text: msg.message ?? null,
    metadata: {
      conversation_type: c.type,
      conversation_id: c.id,
      conversation_name: c.name,
      ...(c.type === 'channel' && { collected_through: owner.id }),
      ...(c.isPrivate === undefined ? {} : { is_private: c.isPrivate }),
      sender: msg.sender ?? null,
      // The text as Zoom gave it, so the item view shows the message (its record is the item's content).
      message: msg.message ?? null,
      sender_display_name: msg.sender_display_name ?? null,
      sender_member_id: msg.sender_member_id ?? msg.send_member_id ?? null,
      date_time: msg.date_time ?? null,
      timestamp: msg.timestamp ?? null,
      status,
      message_type: msg.message_type ?? null,
      reply_main_message_id: msg.reply_main_message_id ?? null,
      files,
    },
  };
}
