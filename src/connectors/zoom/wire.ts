// Zoom's wire shapes, typed leniently: the live API drifts (field typos, fields missing on some file types),
// so every field the connector does not strictly need is optional.

export interface ZoomPage {
  /** "" (or absent) on the last page. Expires 15 minutes after it was issued. */
  next_page_token?: string;
}

export interface ZoomUser {
  id: string;
  email: string;
  first_name?: string;
  last_name?: string;
  display_name?: string;
  status?: string; // 'active' | 'inactive' | 'pending' | …
  type?: number;
  [field: string]: unknown;
}

export interface UsersPage extends ZoomPage {
  users?: ZoomUser[];
}

export interface RecordingFile {
  /** Absent on CC and TIMELINE entries. */
  id?: string;
  meeting_id?: string;
  recording_start?: string;
  recording_end?: string;
  file_type?: string;
  file_extension?: string;
  file_size?: number;
  download_url?: string;
  play_url?: string;
  status?: string;
  recording_type?: string;
  /** Set on files listed from the trash (`trash=true`). */
  deleted_time?: string;
  /** participant_audio_files entries: whose audio it is. */
  file_name?: string;
}

export interface RecordedMeeting {
  uuid: string;
  id?: number;
  host_id?: string;
  topic?: string;
  type?: number | string;
  start_time?: string;
  timezone?: string;
  duration?: number;
  total_size?: number;
  recording_count?: number;
  recording_files?: RecordingFile[];
  /** Only on GET /meetings/{uuid}/recordings (never on the users' recordings list). */
  participant_audio_files?: RecordingFile[];
}

export interface RecordingsPage extends ZoomPage {
  meetings?: RecordedMeeting[];
}

export interface MeetingSummary {
  meeting_uuid?: string;
  meeting_topic?: string;
  summary_title?: string;
  summary_content?: string;
  summary_overview?: string;
  summary_created_time?: string;
  summary_last_modified_time?: string;
  [field: string]: unknown;
}

export interface ChatChannel {
  id: string;
  name?: string;
  type?: number;
  jid?: string;
  /** `new_members_can_see_previous_messages_files: false`: each member sees the messages since they joined. */
  channel_settings?: { new_members_can_see_previous_messages_files?: boolean };
}

export interface ChannelsPage extends ZoomPage {
  channels?: ChatChannel[];
}

export interface ChatSession {
  type?: string;
  name?: string;
  peer_contact_email?: string;
  peer_contact_user_id?: string;
  /** The only key of a contact outside the account (Correction Z4); `to_contact` accepts it. */
  peer_contact_member_id?: string;
  channel_id?: string;
  last_message_sent_time?: string;
  /** Zoom's Postman example spells it this way. */
  last_mesage_sent_time?: string;
}

export interface SessionsPage extends ZoomPage {
  sessions?: ChatSession[];
}

export interface ChatMessage {
  id: string;
  message?: string;
  sender?: string;
  sender_display_name?: string;
  sender_member_id?: string;
  send_member_id?: string;
  date_time?: string;
  timestamp?: number;
  message_type?: string;
  status?: string; // 'Normal' | 'Edited' | 'Deleted' | …
  reply_main_message_id?: string;
  reply_main_message_timestamp?: number;
  files?: Array<{ file_id?: string; file_name?: string; file_size?: number; download_url?: string }>;
  file_id?: string;
  file_name?: string;
  file_size?: number;
  [field: string]: unknown;
}

export interface MessagesPage extends ZoomPage {
  messages?: ChatMessage[];
}
