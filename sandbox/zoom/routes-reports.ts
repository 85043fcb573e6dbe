// Team Chat reports (../shared/reference/zoom-api.md §Team Chat "Related"; shapes from Zoom's generated SDK, @zoom/rivet
// team-chat typings `ReportsGetChatSessionsReports*` and `ReportsGetChatMessageReports*`): account-level, `from`/`to`
// as yyyy-mm-dd, a window of one month at most within the last six months. The session report lists `messages` and,
// with `include_fields=edited_messages,deleted_messages`, the `edited_messages` (here: the text an edit replaced) and
// the `deleted_messages` (the text before the deletion), each with its `action_timestamp`.
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { chatFilesField } from './chat-downloads.ts';
import { guard, isoSeconds, parseDate, zoomError, type Query, type RouteSpec, type SandboxContext } from './http.ts';
import { pageSize } from './paging.ts';
import { sixMonthsBefore } from './routes-chat.ts';
import type { ZoomChatMessage } from './tenant.ts';

const LEGACY = ['report_chat:read:admin', 'imchat:read:admin'];
const SESSIONS: RouteSpec = { category: 'Medium', scopes: ['report:read:list_chat_sessions:admin', ...LEGACY] };
const SESSION: RouteSpec = { category: 'Medium', scopes: ['report:read:chat_session:admin', ...LEGACY] };
const DAY = 86_400_000;

/** A chat session as the reports see it: a one-to-one conversation or a channel. */
interface ReportSession {
  id: string;
  name: string;
  type: 'Group' | '1:1';
  channel_id?: string;
  member_emails: string[];
  has_external_member: boolean;
  messages: ZoomChatMessage[];
}

/** The report's session id of a one-to-one conversation (stable; Zoom's own format is not documented). */
export function oneToOneSessionId(userIds: readonly string[]): string {
  return `1:1-${crypto
    .createHash('sha256')
    .update([...userIds].sort().join('|'))
    .digest('hex')
    .slice(0, 24)}`;
}

function sessionsOf(ctx: SandboxContext): ReportSession[] {
  const { tenant } = ctx;
  const out: ReportSession[] = [];
  for (const c of tenant.oneToOne) {
    const people = c.userIds.map((id) => tenant.anyUser(id));
    out.push({
      id: oneToOneSessionId(c.userIds),
      name: people
        .map((p, i) => p?.display_name ?? tenant.externalContact(c.userIds[i])?.display_name ?? '')
        .join(', '),
      type: '1:1',
      member_emails: people.flatMap((p) => (p ? [p.email] : [])),
      has_external_member: people.some((p) => !p),
      messages: c.messages,
    });
  }
  for (const ch of tenant.channels) {
    out.push({
      id: ch.jid,
      name: ch.name,
      type: 'Group',
      channel_id: ch.id,
      member_emails: ch.memberIds.flatMap((id) => tenant.anyUser(id)?.email ?? []),
      has_external_member: false,
      messages: tenant.channelMessages[ch.id] ?? [],
    });
  }
  return out;
}

/** [from, to] (epoch ms, `to` through the end of its day), or the error message Zoom answers with code 300. */
function reportWindow(q: Query, nowMs: number): { from: number; to: number } | string {
  const from = q.from === undefined ? undefined : parseDate(q.from);
  const to = q.to === undefined ? undefined : parseDate(q.to);
  if (from === undefined || to === undefined) return 'Invalid field: from and to are required as yyyy-mm-dd.';
  if (from > to) return 'The from date must be earlier than the to date.';
  const monthLater = new Date(from);
  monthLater.setUTCMonth(monthLater.getUTCMonth() + 1);
  if (to > monthLater.getTime()) return 'The date range must be within one month.';
  const floor = sixMonthsBefore(nowMs);
  if (from < floor - (floor % DAY)) return 'Only provide report in recent 6 months.';
  return { from, to: to + DAY - 1 };
}

const within = (m: ZoomChatMessage, w: { from: number; to: number }) => m.timestamp >= w.from && m.timestamp <= w.to;

function reportMessage(ctx: SandboxContext, m: ZoomChatMessage, text: string, action?: number) {
  return {
    id: m.id,
    message: text,
    sender: m.sender,
    sender_member_id: m.senderId,
    sender_display_name: m.sender_display_name,
    date_time: m.date_time,
    timestamp: m.timestamp,
    ...(action !== undefined ? { action_timestamp: action } : {}),
    ...chatFilesField(ctx, m),
  };
}

export function registerReportRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get('/v2/report/chat/sessions', async (req, reply) => {
    if (!guard(ctx, req, reply, SESSIONS)) return reply;
    const q = req.query as Query;
    const size = pageSize(q.page_size, 30, 300);
    if (size === undefined) return zoomError(reply, 400, 300, 'Invalid field: page_size.');
    const w = reportWindow(q, ctx.now().getTime());
    if (typeof w === 'string') return zoomError(reply, 400, 300, w);
    const active = sessionsOf(ctx).filter((s) => s.messages.some((m) => within(m, w)));
    const page = ctx.pages.paginate(active, size, q.next_page_token || undefined, `report-sessions|${w.from}|${w.to}`);
    if (!page) return zoomError(reply, 400, 300, 'The next page token is either invalid or has expired.');
    return {
      from: q.from,
      to: q.to,
      page_size: size,
      next_page_token: page.next_page_token,
      sessions: page.items.map((s) => ({
        id: s.id,
        name: s.name,
        type: s.type,
        ...(s.channel_id ? { channel_id: s.channel_id } : {}),
        member_emails: s.member_emails,
        status: 'active',
        has_external_member: s.has_external_member,
        last_message_sent_time: isoSeconds(Math.max(...s.messages.map((m) => m.timestamp))),
      })),
    };
  });

  app.get<{ Params: { sessionId: string } }>('/v2/report/chat/sessions/:sessionId', async (req, reply) => {
    if (!guard(ctx, req, reply, SESSION)) return reply;
    const q = req.query as Query;
    const size = pageSize(q.page_size, 30, 300);
    if (size === undefined) return zoomError(reply, 400, 300, 'Invalid field: page_size.');
    const w = reportWindow(q, ctx.now().getTime());
    if (typeof w === 'string') return zoomError(reply, 400, 300, w);
    const session = sessionsOf(ctx).find((s) => s.id === req.params.sessionId);
    if (!session) return zoomError(reply, 404, 4130, `Session does not exist: ${req.params.sessionId}.`);
    const fields = new Set((q.include_fields ?? '').split(',').map((f) => f.trim()));
    const listed = session.messages
      .filter((m) => within(m, w))
      .filter((m) => m.status !== 'Deleted' || fields.has('deleted_messages'))
      .sort((a, b) => a.timestamp - b.timestamp);
    const binding = `report-session|${session.id}|${w.from}|${w.to}|${[...fields].sort().join(',')}`;
    const page = ctx.pages.paginate(listed, size, q.next_page_token || undefined, binding);
    if (!page) return zoomError(reply, 400, 300, 'The next page token is either invalid or has expired.');
    const current = page.items.filter((m) => m.status !== 'Deleted');
    const edited = page.items.filter((m) => m.status === 'Edited' && m.originalMessage !== undefined);
    const deleted = page.items.filter((m) => m.status === 'Deleted');
    return {
      from: q.from,
      to: q.to,
      page_size: size,
      next_page_token: page.next_page_token,
      messages: current.map((m) => reportMessage(ctx, m, m.message)),
      ...(fields.has('edited_messages')
        ? { edited_messages: edited.map((m) => reportMessage(ctx, m, m.originalMessage!, m.actionAt)) }
        : {}),
      ...(fields.has('deleted_messages')
        ? { deleted_messages: deleted.map((m) => reportMessage(ctx, m, m.message, m.actionAt)) }
        : {}),
    };
  });
}
