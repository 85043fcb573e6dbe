// The sandbox's demo account. Field names follow Zoom's wire names wherever the field is served as-is,
// so tests can compare API answers with this data directly.
import type { ZoomLegalHoldMatter } from './seed-legal-hold.ts';

export type UserStatus = 'active' | 'inactive' | 'pending';

export interface ZoomUser {
  id: string;
  first_name: string;
  last_name: string;
  display_name: string;
  email: string;
  type: number; // 1 basic, 2 licensed
  pmi: number;
  timezone: string;
  verified: number;
  dept: string;
  created_at: string;
  user_created_at: string;
  last_login_time?: string;
  last_client_version?: string;
  language: string;
  status: UserStatus;
  role_id: string; // '0' owner, '1' admin, '2' member
}

export type RecordingFileType = 'MP4' | 'M4A' | 'TRANSCRIPT' | 'CHAT' | 'CC' | 'TIMELINE';

export interface ZoomRecordingFile {
  /** Always set here (contentOf() takes it); Zoom omits `id`, `status`, `file_size`, `recording_type` on CC/TIMELINE entries. */
  id: string;
  idOnWire: boolean;
  meeting_id: string; // the meeting UUID
  recording_start: string;
  recording_end: string;
  file_type: RecordingFileType;
  file_extension: 'MP4' | 'M4A' | 'VTT' | 'TXT' | 'JSON';
  file_size: number;
  recording_type: string;
  /** Last path segment of download_url / play_url. */
  downloadKey: string;
  contentType: string;
  /** In the trash since then (a file the host deleted on its own): listed only with `trash=true&trash_type=recording_file`. */
  deleted_time?: string;
  /** A participant's own audio (`participant_audio_files`): only GET /meetings/{uuid}/recordings lists it (Z1). */
  file_name?: string;
}

export interface ZoomSummaryDetail {
  label: string;
  summary: string;
}

export interface ZoomMeetingSummary {
  meeting_host_id: string;
  meeting_host_email: string;
  meeting_uuid: string;
  meeting_id: number;
  meeting_topic: string;
  meeting_start_time: string;
  meeting_end_time: string;
  summary_start_time: string;
  summary_end_time: string;
  summary_created_time: string;
  summary_last_modified_time: string;
  summary_title: string;
  summary_overview: string;
  summary_details: ZoomSummaryDetail[];
  next_steps: string[];
  edited_summary?: { summary_details?: ZoomSummaryDetail[]; next_steps?: string[] };
  summary_content: string; // Markdown
  summary_doc_url: string;
}

export interface ZoomMeeting {
  uuid: string;
  id: number; // shared by the instances of a recurring meeting
  host_id: string;
  host_email: string;
  topic: string;
  type: number;
  start_time: string;
  duration: number; // minutes
  timezone: string;
  recording_files: ZoomRecordingFile[];
  summary?: ZoomMeetingSummary;
  /** One M4A per participant; served by GET /meetings/{uuid}/recordings only (Correction Z1). */
  participant_audio_files?: ZoomRecordingFile[];
  /** The host deleted the whole recording: in the trash (listed with `trash=true`) until Zoom purges it (Z2). */
  trashed?: { deleted_time: string };
}

/** Every file of a meeting that downloads: its recording files and its participants' audio. */
export function filesOfMeeting(m: ZoomMeeting): ZoomRecordingFile[] {
  return [...m.recording_files, ...(m.participant_audio_files ?? [])];
}

export interface ZoomChannel {
  id: string;
  jid: string;
  name: string;
  type: number; // 1 private, 3 public
  isPrivate: boolean;
  memberIds: string[];
  /**
   * `channel_settings.new_members_can_see_previous_messages_files: false`: a member sees the messages sent since
   * they joined (epoch ms per member id) only, so the channel's history depends on whose view is read.
   */
  joinedAt?: Record<string, number>;
}

/**
 * A Team Chat message. Without `include_deleted_and_edited_message=true` the API lists only `Normal` ones;
 * with it, `Edited` messages (their current text; `originalMessage` is what was first sent) and `Deleted` ones too.
 */
export interface ZoomChatMessage {
  id: string;
  sender: string; // email
  senderId: string;
  sender_display_name: string;
  date_time: string;
  timestamp: number;
  message: string;
  status: 'Normal' | 'Edited' | 'Deleted';
  originalMessage?: string;
  /**
   * `Edited` and `Deleted` messages: when the edit or the deletion happened (epoch ms), the `action_timestamp` of
   * the chat report's `edited_messages` / `deleted_messages` entry (GET /report/chat/sessions/{sessionId}).
   */
  actionAt?: number;
  /** Attachments (Correction Z5): served as `files[]` with a `download_url` that takes the bearer token. */
  files?: ZoomChatFile[];
}

export interface ZoomChatFile {
  file_id: string;
  file_name: string;
  file_size: number;
  /** Last path segment of the file's download_url. */
  downloadKey: string;
  contentType: string;
}

/** A Team Chat contact outside the account (Correction Z4): known by member id only, no user id, no e-mail. */
export interface ZoomExternalContact {
  member_id: string;
  display_name: string;
}

export interface ZoomOneToOne {
  userIds: [string, string];
  messages: ZoomChatMessage[]; // oldest first
}

export interface TenantData {
  accountId: string;
  users: ZoomUser[];
  deletedUsers: ZoomUser[];
  meetings: ZoomMeeting[];
  channels: ZoomChannel[];
  channelMessages: Record<string, ZoomChatMessage[]>;
  oneToOne: ZoomOneToOne[];
  /** Bodies of the text recording files (TRANSCRIPT, CC, CHAT, TIMELINE) and of chat files, by file id. */
  textBodies: Map<string, Buffer>;
  /** Contacts outside the account some users chat with one-to-one (their member id is in `oneToOne`). */
  externalContacts?: ZoomExternalContact[];
  /** Team Chat legal-hold matters and their exported files (bodies in `textBodies` by `file_key`). */
  legalHoldMatters?: ZoomLegalHoldMatter[];
}

export class ZoomTenant implements TenantData {
  readonly accountId: string;
  readonly users: ZoomUser[];
  readonly deletedUsers: ZoomUser[];
  readonly meetings: ZoomMeeting[];
  readonly channels: ZoomChannel[];
  readonly channelMessages: Record<string, ZoomChatMessage[]>;
  readonly oneToOne: ZoomOneToOne[];
  readonly textBodies: Map<string, Buffer>;
  readonly externalContacts: ZoomExternalContact[];
  readonly legalHoldMatters: ZoomLegalHoldMatter[];
  private readonly filesById = new Map<string, { file: ZoomRecordingFile; meeting: ZoomMeeting }>();
  private readonly filesByKey = new Map<string, ZoomRecordingFile>();

  constructor(data: TenantData) {
    this.accountId = data.accountId;
    this.users = data.users;
    this.deletedUsers = data.deletedUsers;
    this.meetings = data.meetings;
    this.channels = data.channels;
    this.channelMessages = data.channelMessages;
    this.oneToOne = data.oneToOne;
    this.textBodies = data.textBodies;
    this.externalContacts = data.externalContacts ?? [];
    this.legalHoldMatters = data.legalHoldMatters ?? [];
    for (const meeting of this.meetings) {
      for (const file of filesOfMeeting(meeting)) {
        this.filesById.set(file.id, { file, meeting });
        this.filesByKey.set(file.downloadKey, file);
      }
    }
  }

  /** The account owner: who consents in the auto-consent page and who `me` means. */
  get owner(): ZoomUser {
    return this.users[0];
  }

  /** A user that still exists (any status), by id or email (case-insensitive). */
  findUser(idOrEmail: string): ZoomUser | undefined {
    const needle = idOrEmail.toLowerCase();
    return this.users.find((u) => u.id === idOrEmail || u.email.toLowerCase() === needle);
  }

  /** Any user ever seen, deleted ones included (chat peers can be deleted users). */
  anyUser(idOrEmail: string): ZoomUser | undefined {
    const needle = idOrEmail.toLowerCase();
    return (
      this.findUser(idOrEmail) ?? this.deletedUsers.find((u) => u.id === idOrEmail || u.email.toLowerCase() === needle)
    );
  }

  meetingsOf(userId: string): ZoomMeeting[] {
    return this.meetings.filter((m) => m.host_id === userId);
  }

  meetingByUuid(uuid: string): ZoomMeeting | undefined {
    return this.meetings.find((m) => m.uuid === uuid);
  }

  /** Zoom resolves a numeric meeting id to its latest instance. */
  latestInstance(meetingId: number): ZoomMeeting | undefined {
    let latest: ZoomMeeting | undefined;
    for (const m of this.meetings) {
      if (m.id === meetingId && (!latest || m.start_time > latest.start_time)) latest = m;
    }
    return latest;
  }

  file(fileId: string): { file: ZoomRecordingFile; meeting: ZoomMeeting } | undefined {
    return this.filesById.get(fileId);
  }

  fileByDownloadKey(key: string): ZoomRecordingFile | undefined {
    return this.filesByKey.get(key);
  }

  externalContact(memberId: string): ZoomExternalContact | undefined {
    return this.externalContacts.find((c) => c.member_id === memberId);
  }

  /** A file attached to a chat message, by its download key (messages are few in a sandbox: scanned). */
  chatFile(downloadKey: string): ZoomChatFile | undefined {
    const lists = [...this.oneToOne.map((c) => c.messages), ...Object.values(this.channelMessages)];
    for (const list of lists)
      for (const m of list) for (const f of m.files ?? []) if (f.downloadKey === downloadKey) return f;
    return undefined;
  }

  channelsOf(userId: string): ZoomChannel[] {
    return this.channels.filter((c) => c.memberIds.includes(userId));
  }

  /** One-to-one conversations of a user, each with the peer's user id. */
  conversationsOf(userId: string): Array<{ peerId: string; conversation: ZoomOneToOne }> {
    return this.oneToOne
      .filter((c) => c.userIds.includes(userId))
      .map((c) => ({ peerId: c.userIds[0] === userId ? c.userIds[1] : c.userIds[0], conversation: c }));
  }

  /** A meeting recorded after seeding (sandbox control): its files become downloadable at once. */
  addMeeting(meeting: ZoomMeeting): void {
    this.meetings.push(meeting);
    for (const file of filesOfMeeting(meeting)) {
      this.filesById.set(file.id, { file, meeting });
      this.filesByKey.set(file.downloadKey, file);
    }
  }

  /** A file that becomes ready later (a transcript after the recording). */
  addFile(meeting: ZoomMeeting, file: ZoomRecordingFile): void {
    meeting.recording_files.push(file);
    this.filesById.set(file.id, { file, meeting });
    this.filesByKey.set(file.downloadKey, file);
  }

  /** Deletes one recording file, as a host deleting it from the web portal would. */
  removeFile(fileId: string): void {
    const found = this.filesById.get(fileId);
    if (!found) return;
    for (const list of [found.meeting.recording_files, found.meeting.participant_audio_files ?? []]) {
      if (list.includes(found.file)) list.splice(list.indexOf(found.file), 1);
    }
    this.filesById.delete(fileId);
    this.filesByKey.delete(found.file.downloadKey);
  }

  /** Removes a user as Zoom's delete does: gone from every listing, `/users/{id}/…` answers 404 code 1001. */
  deleteUser(idOrEmail: string): ZoomUser | undefined {
    const user = this.findUser(idOrEmail);
    if (!user) return undefined;
    this.users.splice(this.users.indexOf(user), 1);
    this.deletedUsers.push(user);
    return user;
  }
}
