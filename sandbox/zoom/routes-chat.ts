import type { FastifyInstance } from 'fastify';
import {
  guard,
  isoSeconds,
  parseDate,
  parseDateTime,
  resolveUser,
  userNotFound,
  zoomError,
  type Query,
  type RouteSpec,
  type SandboxContext,
} from './http.ts';
import { pageSize } from './paging.ts';
import { chatFilesField } from './chat-downloads.ts';
import type { ZoomChatMessage, ZoomUser } from './tenant.ts';

const CHANNELS: RouteSpec = {
  category: 'Medium',
  scopes: [
    'team_chat:read:list_user_channels:admin',
    'team_chat:read:list_user_channels',
    'chat_channel:read:admin',
    'chat_channel:read',
  ],
};
const SESSIONS: RouteSpec = {
  category: 'Medium',
  scopes: [
    'team_chat:read:list_user_sessions:admin',
    'team_chat:read:list_user_sessions',
    'chat_message:read:admin',
    'chat_message:read',
  ],
};
const MESSAGES: RouteSpec = {
  category: 'Medium',
  scopes: [
    'team_chat:read:list_user_messages:admin',
    'team_chat:read:list_user_messages',
    'chat_message:read:admin',
    'chat_message:read',
  ],
};
const EXPIRED = 'The next page token is either invalid or has expired.';
const DAY = 86_400_000;

type Params = { Params: { userId: string } };

export function registerChatRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get<Params>('/v2/chat/users/:userId/channels', async (req, reply) => {
    const who = guard(ctx, req, reply, CHANNELS);
    if (!who) return reply;
    const user = resolveUser(ctx, who, req.params.userId);
    if (!user) return userNotFound(reply, req.params.userId);
    const q = req.query as Query;
    const size = pageSize(q.page_size, 10, 50);
    if (size === undefined) return zoomError(reply, 400, 300, 'Invalid field: page_size.');
    const channels = ctx.tenant.channelsOf(user.id);
    const page = ctx.pages.paginate(channels, size, q.next_page_token || undefined, `channels|${user.id}`);
    if (!page) return zoomError(reply, 400, 300, EXPIRED);
    return {
      total_records: channels.length,
      page_size: size,
      next_page_token: page.next_page_token,
      channels: page.items.map((c) => ({
        id: c.id,
        jid: c.jid,
        name: c.name,
        type: c.type,
        channel_url: `${ctx.mainOrigin()}/launch/chat/v2/${c.id}`,
        channel_settings: { new_members_can_see_previous_messages_files: !c.joinedAt, allow_to_add_external_users: 0 },
      })),
    };
  });

  app.get<Params>('/v2/chat/users/:userId/sessions', async (req, reply) => {
    const who = guard(ctx, req, reply, SESSIONS);
    if (!who) return reply;
    const user = resolveUser(ctx, who, req.params.userId);
    if (!user) return userNotFound(reply, req.params.userId);
    const q = req.query as Query;
    const size = pageSize(q.page_size, 10, 50);
    if (size === undefined) return zoomError(reply, 400, 300, 'Invalid field: page_size.');
    if (q.type !== undefined && q.type !== '1:1' && q.type !== 'groupchat')
      return zoomError(reply, 400, 300, 'Invalid field: type.');
    const from = q.from !== undefined ? parseDateTime(q.from) : -Infinity;
    const to = q.to !== undefined ? parseDateTime(q.to) : Infinity;
    if (from === undefined || to === undefined)
      return zoomError(reply, 400, 300, "Invalid date format, expected yyyy-MM-dd'T'HH:mm:ss'Z'.");
    const sessions: Array<Record<string, string>> = [];
    if (q.type !== 'groupchat') {
      for (const { peerId, conversation } of ctx.tenant.conversationsOf(user.id)) {
        const peer = ctx.tenant.anyUser(peerId);
        const external = peer ? undefined : ctx.tenant.externalContact(peerId);
        if (external) {
          // Correction Z4: a contact outside the account has a member id only.
          sessions.push({
            name: external.display_name,
            type: '1:1',
            peer_contact_user_id: '',
            peer_contact_member_id: external.member_id,
            last_message_sent_time: lastSent(conversation.messages),
          });
          continue;
        }
        if (!peer) continue;
        sessions.push({
          name: peer.display_name,
          type: '1:1',
          peer_contact_email: peer.email,
          peer_contact_user_id: peer.id,
          last_message_sent_time: lastSent(conversation.messages),
        });
      }
    }
    if (q.type !== '1:1') {
      for (const c of ctx.tenant.channelsOf(user.id)) {
        sessions.push({
          name: c.name,
          type: 'groupchat',
          channel_id: c.id,
          last_message_sent_time: lastSent(ctx.tenant.channelMessages[c.id]),
        });
      }
    }
    const inRange = sessions
      .filter((s) => {
        const at = Date.parse(s.last_message_sent_time);
        return Number.isNaN(at) ? q.from === undefined && q.to === undefined : at >= from && at <= to;
      })
      .sort((a, b) => (a.last_message_sent_time < b.last_message_sent_time ? 1 : -1));
    const page = ctx.pages.paginate(
      inRange,
      size,
      q.next_page_token || undefined,
      `sessions|${user.id}|${q.type}|${q.from}|${q.to}`,
    );
    if (!page) return zoomError(reply, 400, 300, EXPIRED);
    return {
      ...(q.from !== undefined ? { from: q.from } : {}),
      ...(q.to !== undefined ? { to: q.to } : {}),
      page_size: size,
      next_page_token: page.next_page_token,
      sessions: page.items,
    };
  });

  app.get<Params>('/v2/chat/users/:userId/messages', async (req, reply) => {
    const who = guard(ctx, req, reply, MESSAGES);
    if (!who) return reply;
    const user = resolveUser(ctx, who, req.params.userId);
    if (!user) return userNotFound(reply, req.params.userId);
    const q = req.query as Query;
    const size = pageSize(q.page_size, 10, 50);
    if (size === undefined) return zoomError(reply, 400, 300, 'Invalid field: page_size.');
    if (!q.to_contact === !q.to_channel)
      return zoomError(reply, 400, 300, 'Either to_contact or to_channel is required.');
    const range = messageRange(q, ctx.now().getTime());
    if (typeof range === 'string') return zoomError(reply, 400, 300, range);
    // Correction Z6: a look-back, not a span limit.
    if (range.from < sixMonthsBefore(ctx.now().getTime()))
      return zoomError(reply, 400, 300, 'Only provide past chat messages in recent 6 months.');
    let all: ZoomChatMessage[];
    if (q.to_contact && ctx.variance?.failsConversation(user.id, ctx.tenant.anyUser(q.to_contact)?.id)) {
      // Not in Zoom's reference: a conversation that cannot be read, answered as a plain client error every time.
      return zoomError(reply, 400, 5301, 'Unable to retrieve the messages of this conversation.');
    }
    if (q.to_contact) {
      all = contactMessages(ctx, user, q.to_contact);
    } else {
      const channel = ctx.tenant.channels.find((c) => c.id === q.to_channel);
      if (!channel) return zoomError(reply, 404, 4130, `Channel does not exist: ${q.to_channel}.`);
      // "The API only returns messages sent and/or received by the user in the queried channel."
      all = channel.memberIds.includes(user.id) ? ctx.tenant.channelMessages[channel.id] : [];
      // A channel that does not show new members its history: this member's view starts when they joined.
      const joined = channel.joinedAt?.[user.id];
      if (joined !== undefined) all = all.filter((m) => m.timestamp >= joined);
    }
    const withRevisions = q.include_deleted_and_edited_message === 'true';
    const selected = all
      .filter((m) => withRevisions || m.status === 'Normal')
      .filter((m) => m.timestamp >= range.from && m.timestamp <= range.to)
      .sort((a, b) => b.timestamp - a.timestamp);
    const binding = `messages|${user.id}|${q.to_contact ?? ''}|${q.to_channel ?? ''}|${range.from}|${range.to}|${withRevisions}`;
    const page = ctx.pages.paginate(selected, size, q.next_page_token || undefined, binding);
    if (!page) return zoomError(reply, 400, 300, EXPIRED);
    return {
      ...(range.date ? { date: range.date } : {}),
      from: isoSeconds(range.from),
      to: isoSeconds(range.to),
      page_size: size,
      next_page_token: page.next_page_token,
      messages: page.items.map((m) =>
        reshapeMessage(ctx, m, {
          id: m.id,
          message: m.message,
          sender: m.sender,
          sender_display_name: m.sender_display_name,
          date_time: m.date_time,
          timestamp: m.timestamp,
          message_type: m.files?.length ? (m.message ? 'file_and_text' : 'others') : 'plain_text_message',
          ...(withRevisions ? { status: m.status } : {}),
          ...chatFilesField(ctx, m),
        }),
      ),
    };
  });
}

const OPTIONAL_MESSAGE_FIELDS = ['sender_display_name', 'message_type', 'date_time'];

function reshapeMessage(
  ctx: SandboxContext,
  m: ZoomChatMessage,
  body: Record<string, unknown>,
): Record<string, unknown> {
  return ctx.variance ? ctx.variance.reshape(body, OPTIONAL_MESSAGE_FIELDS, m.id) : body;
}

/** `to_contact` takes the peer's email, user id or member id; deleted peers still have their history. */
function contactMessages(ctx: SandboxContext, user: ZoomUser, contact: string): ZoomChatMessage[] {
  const peerId = ctx.tenant.anyUser(contact)?.id ?? ctx.tenant.externalContact(contact)?.member_id;
  if (!peerId) return [];
  const found = ctx.tenant.conversationsOf(user.id).find((c) => c.peerId === peerId);
  return found ? found.conversation.messages : [];
}

/** `date` (a UTC day) wins over from/to; with neither, the API answers for today only. `to` defaults to now. */
function messageRange(q: Query, nowMs: number): { from: number; to: number; date?: string } | string {
  if (q.date !== undefined || q.from === undefined) {
    const day = q.date !== undefined ? parseDate(q.date) : Math.floor(nowMs / DAY) * DAY;
    if (day === undefined) return 'Invalid date format, expected yyyy-mm-dd.';
    return { from: day, to: day + DAY - 1, date: new Date(day).toISOString().slice(0, 10) };
  }
  const from = parseDateTime(q.from);
  const to = q.to !== undefined ? parseDateTime(q.to) : nowMs;
  if (from === undefined || to === undefined) return "Invalid date format, expected yyyy-MM-dd'T'HH:mm:ss'Z'.";
  if (from > to) return 'The from date must be earlier than the to date.';
  return { from, to };
}

/** "Recent 6 months": the same instant six calendar months back (UTC). */
export function sixMonthsBefore(nowMs: number): number {
  const d = new Date(nowMs);
  d.setUTCMonth(d.getUTCMonth() - 6);
  return d.getTime();
}

function lastSent(messages: ZoomChatMessage[] | undefined): string {
  const last = messages?.[messages.length - 1];
  return last ? last.date_time : '';
}
