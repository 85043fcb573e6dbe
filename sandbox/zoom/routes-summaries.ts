import type { FastifyInstance } from 'fastify';
import {
  guard,
  meetingRef,
  missing,
  parseDateTime,
  zoomError,
  type Query,
  type RouteSpec,
  type SandboxContext,
} from './http.ts';
import { pageSize } from './paging.ts';
import { findMeeting } from './routes-recordings.ts';
import type { ZoomMeetingSummary } from './tenant.ts';

const LIST_SUMMARIES: RouteSpec = {
  category: 'Medium',
  scopes: [
    'meeting:read:list_summaries:admin',
    'meeting:read:list_summaries',
    'meeting_summary:read:admin',
    'meeting:read:admin',
  ],
};
const GET_SUMMARY: RouteSpec = {
  category: 'Light',
  scopes: [
    'meeting:read:summary:admin',
    'meeting:read:summary',
    'meeting_summary:read:admin',
    'meeting_summary:read',
    'meeting:read:admin',
  ],
};
const LIST_FIELDS = [
  'meeting_host_id',
  'meeting_host_email',
  'meeting_uuid',
  'meeting_id',
  'meeting_topic',
  'meeting_start_time',
  'meeting_end_time',
  'summary_start_time',
  'summary_end_time',
  'summary_created_time',
  'summary_last_modified_time',
] as const;

/** The spec marks these deprecated or optional; the variance profile leaves some out. */
const OPTIONAL_SUMMARY_FIELDS = [
  'summary_overview',
  'summary_details',
  'next_steps',
  'edited_summary',
  'summary_doc_url',
  'summary_title',
  'meeting_end_time',
];

export function registerSummaryRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  // Registered before /v2/meetings/:meetingId/… so the static segment wins.
  app.get('/v2/meetings/meeting_summaries', async (req, reply) => {
    if (!guard(ctx, req, reply, LIST_SUMMARIES)) return reply;
    const q = req.query as Query;
    const size = pageSize(q.page_size, 30, 300);
    if (size === undefined) return zoomError(reply, 400, 300, 'Invalid field: page_size.');
    const from = q.from !== undefined ? parseDateTime(q.from) : -Infinity;
    const to = q.to !== undefined ? parseDateTime(q.to) : Infinity;
    if (from === undefined || to === undefined)
      return zoomError(reply, 400, 300, "Invalid date format, expected yyyy-MM-dd'T'HH:mm:ss'Z'.");
    const field = q.time_filter_field ?? 'summary_start_time';
    if (field !== 'summary_start_time' && field !== 'summary_created_time')
      return zoomError(reply, 400, 300, 'Invalid field: time_filter_field.');
    const summaries = ctx.tenant.meetings
      .filter((m) => m.summary && ctx.tenant.findUser(m.host_id))
      .map((m) => m.summary!)
      .filter((s) => {
        const at = Date.parse(s[field]);
        return at >= from && at <= to;
      })
      .sort((a, b) => (a[field] < b[field] ? 1 : -1));
    const page = ctx.pages.paginate(
      summaries,
      size,
      q.next_page_token || undefined,
      `summaries|${q.from}|${q.to}|${field}`,
    );
    if (!page) return zoomError(reply, 400, 300, 'The next page token is either invalid or has expired.');
    return {
      page_size: size,
      next_page_token: page.next_page_token,
      ...(q.from !== undefined ? { from: q.from } : {}),
      ...(q.to !== undefined ? { to: q.to } : {}),
      summaries: page.items.map(listItem),
    };
  });

  app.get('/v2/meetings/:meetingId/meeting_summary', async (req, reply) => {
    if (!guard(ctx, req, reply, GET_SUMMARY)) return reply;
    const raw = req.raw.url ?? '';
    const meeting = findMeeting(ctx, raw);
    if (!meeting) return missing(ctx, reply, 'Meeting', raw, 3001, `Meeting does not exist: ${meetingRef(raw) ?? ''}.`);
    if (!meeting.summary) return missing(ctx, reply, 'Meeting summary', raw, 3001, 'Meeting summary does not exist.');
    return ctx.variance
      ? ctx.variance.reshape({ ...meeting.summary }, OPTIONAL_SUMMARY_FIELDS, meeting.uuid)
      : meeting.summary;
  });
}

function listItem(s: ZoomMeetingSummary): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of LIST_FIELDS) out[key] = s[key];
  return out;
}
