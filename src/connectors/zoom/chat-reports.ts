// Edited and deleted Team Chat messages from the account's chat reports (issue 20, `scopes_type=preservation`):
// `GET /report/chat/sessions` (from/to yyyy-mm-dd, one month at most, within the last six months) lists the sessions,
// `GET /report/chat/sessions/{sessionId}?include_fields=edited_messages,deleted_messages` returns, beside the
// messages, each edit (`edited_messages`) and each deletion (`deleted_messages`) with its `action_timestamp`
// (shapes: ../shared/reference/zoom-api.md §Team Chat "Related" and Zoom's @zoom/rivet team-chat typings). The
// message listings give a message's current text and status only; these records are what was there before.
//
// Read when the grant holds the reports' scopes, after an owner's chats (phase `reports`), for the sessions the run's
// one listing gave the owner (preservation.ts): its one-to-one sessions (items held for the owner), and the sessions
// of the channels its collection completed in this run (items held for the channel, like its messages).
import type { CollectEvent, ItemInput } from '../types.ts';
import { pages } from './api.ts';
import { reportWindows } from './preservation.ts';
import { segment, shortHash, type Owner } from './items.ts';
import { recordEvent } from './record.ts';
import type { ZoomRun } from './run.ts';
import type { ChatTarget, Position } from './state.ts';
import type { ChatMessage, ZoomPage } from './wire.ts';
import { isoDate } from './windows.ts';

const PAGE = 300;
export const REPORT_FIELDS = ['edited_messages', 'deleted_messages'] as const;
type ReportField = (typeof REPORT_FIELDS)[number];

export type ReportMessage = ChatMessage & { action_timestamp?: number; receiver?: string };

type ReportMessagesPage = ZoomPage & Partial<Record<ReportField, ReportMessage[]>>;

export async function* collectReports(run: ZoomRun, owner: Owner, pos: Position): AsyncGenerator<CollectEvent> {
  if (!pos.targets) {
    const reports = run.preservation.reports ?? {};
    const channels = run.state.channelsDone.filter((id) => !(run.state.reportedChannels ?? []).includes(id));
    run.state.reportedChannels = [...(run.state.reportedChannels ?? []), ...channels];
    pos.targets = structuredClone([
      ...(reports[owner.id] ?? []),
      ...channels.flatMap((id) => reports[`channel:${id}`] ?? []),
    ]);
    pos.target = 0;
    pos.window = 0;
    pos.page = null;
    yield run.checkpoint();
  }
  const targets = pos.targets;
  for (pos.target ??= 0; pos.target < targets.length; pos.target++) {
    const t = targets[pos.target];
    const channel = channelOf(t);
    const since = channel ? run.channelSince(channel) : run.ownerSince(owner.id);
    const windows = reportWindows(run.state.startedAt, Math.max(t.since, since), t.until);
    for (; pos.window < windows.length; pos.window++) {
      const w = windows[pos.window];
      const query = {
        from: isoDate(w.start),
        to: isoDate(w.end),
        page_size: PAGE,
        include_fields: REPORT_FIELDS.join(','),
      };
      for await (const { page, next } of pages<ReportMessagesPage>(
        run.api,
        'reading a chat report',
        `/report/chat/sessions/${encodeURIComponent(t.id)}`,
        query,
        pos.page ?? null,
        run.now,
      )) {
        for (const field of REPORT_FIELDS)
          for (const entry of page[field] ?? [])
            if (entry?.id) yield recordEvent(reportItem(owner, t, entry, field), entry);
        pos.page = next;
        if (next) yield run.checkpoint();
      }
      pos.page = null;
    }
    pos.window = 0;
    yield run.checkpoint();
  }
}

/** The channel of a channel's report session (its `contact` is `channel:<id>`). */
const channelOf = (t: ChatTarget) =>
  t.contact?.startsWith('channel:') ? t.contact.slice('channel:'.length) : undefined;

/**
 * An edit or a deletion the report returned: an item of its own beside the message (kind of its conversation),
 * `metadata.parent_source_id` naming the message. Source id: `<message id>|edited|<action_timestamp>` (each edit
 * once) or `<message id>|deleted`.
 */

export function reportItem(owner: Owner, t: ChatTarget, m: ReportMessage, field: ReportField): ItemInput {
  const channelId = channelOf(t);
  const deleted = field === 'deleted_messages';
  const action = typeof m.action_timestamp === 'number' ? m.action_timestamp : undefined;
  const sourceId = deleted ? `${m.id}|deleted` : `${m.id}|edited|${action ?? shortHash(m)}`;
  const when = m.date_time ?? (typeof m.timestamp === 'number' ? new Date(m.timestamp).toISOString() : undefined);
  const sender = m.sender_display_name ?? m.sender ?? 'unknown sender';
  return {
    kind: channelId ? 'channel_message' : 'chat_message',
    sourceId,
    name: segment(`${when ?? ''} ${sender} (${deleted ? 'deleted' : 'before an edit'})`, sourceId),
    path: `/${segment(owner.email, owner.id)}/chats/reports/${segment(t.name, t.id)}/${when ? when.slice(0, 10) : 'undated'}/${segment(sourceId, m.id)}`,
    // A channel is a unit of its own (as its messages are); a one-to-one conversation is the owner's.
    custodian: channelId ?? owner.id,
    size: null,
    mimeType: null,
    createdAt: when ?? null,
    modifiedAt: action !== undefined ? new Date(action).toISOString() : null,
    version: null,
    text: m.message ?? null,
    metadata: {
      parent_source_id: m.id,
      report_field: field,
      ...(deleted ? { deleted: true } : { edited: true }),
      action_timestamp: action ?? null,
      report_session_id: t.id,
      conversation_type: channelId ? 'channel' : 'one-to-one',
      conversation_id: channelId ?? t.id,
      conversation_name: t.name,
      sender: m.sender ?? null,
      sender_display_name: m.sender_display_name ?? null,
      sender_member_id: m.sender_member_id ?? m.send_member_id ?? null,
      message: m.message ?? null,
      date_time: m.date_time ?? null,
      timestamp: m.timestamp ?? null,
    },
  };
}
