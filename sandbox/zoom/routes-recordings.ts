import type { FastifyInstance } from 'fastify';
import {
  dayOf,
  guard,
  meetingRef,
  missing,
  parseDate,
  resolveUser,
  userNotFound,
  zoomError,
  type Query,
  type RouteSpec,
  type SandboxContext,
} from './http.ts';
import { pageSize } from './paging.ts';
import { filesOfMeeting, type ZoomMeeting, type ZoomRecordingFile } from './tenant.ts';

const LIST_RECORDINGS: RouteSpec = {
  category: 'Medium',
  scopes: [
    'cloud_recording:read:list_user_recordings:admin',
    'cloud_recording:read:list_user_recordings',
    'recording:read:admin',
    'recording:read',
  ],
};
const GET_RECORDINGS: RouteSpec = {
  category: 'Light',
  scopes: [
    'cloud_recording:read:list_recording_files:admin',
    'cloud_recording:read:list_recording_files',
    'recording:read:admin',
    'recording:read',
  ],
};
const DAY = 86_400_000;

export function registerRecordingRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get<{ Params: { userId: string } }>('/v2/users/:userId/recordings', async (req, reply) => {
    const who = guard(ctx, req, reply, LIST_RECORDINGS);
    if (!who) return reply;
    const user = resolveUser(ctx, who, req.params.userId);
    if (!user) return userNotFound(reply, req.params.userId);
    const q = req.query as Query;
    const size = pageSize(q.page_size, 30, 300);
    if (size === undefined) return zoomError(reply, 400, 300, 'Invalid field: page_size.');
    const trash = q.trash === 'true';
    const trashType = q.trash_type ?? 'meeting_recordings';
    if (trash && trashType !== 'meeting_recordings' && trashType !== 'recording_file')
      return zoomError(reply, 400, 300, 'Invalid field: trash_type.');
    // "The trash files cannot be filtered by date range": from/to do not apply to trash listings.
    const window = trash ? { from: q.from ?? '', to: q.to ?? '' } : recordingWindow(q, ctx.now().getTime());
    if (typeof window === 'string') return zoomError(reply, 400, 300, window);
    const meetingId = q.meeting_id ? Number(q.meeting_id) : undefined;
    const listed = ctx.tenant
      .meetingsOf(user.id)
      .map((m) => listedView(m, trash ? (trashType as 'meeting_recordings' | 'recording_file') : 'live'))
      .filter((v): v is ZoomMeeting => v !== undefined)
      .filter((m) => {
        const day = m.start_time.slice(0, 10);
        return (trash || (day >= window.from && day <= window.to)) && (meetingId === undefined || m.id === meetingId);
      })
      .sort((a, b) => (a.start_time < b.start_time ? 1 : -1));
    // page_size counts meetings, not files.
    const binding = `recordings|${user.id}|${window.from}|${window.to}|${trash}|${trash ? trashType : ''}|${meetingId ?? ''}`;
    const page = ctx.pages.paginate(listed, size, q.next_page_token || undefined, binding);
    if (!page) return zoomError(reply, 400, 300, 'The next page token is either invalid or has expired.');
    return {
      from: window.from,
      to: window.to,
      page_count: Math.ceil(listed.length / size),
      page_size: size,
      total_records: listed.length,
      next_page_token: page.next_page_token,
      meetings: page.items.map((m) => wireMeeting(ctx, m)),
    };
  });

  app.get('/v2/meetings/:meetingId/recordings', async (req, reply) => {
    const who = guard(ctx, req, reply, GET_RECORDINGS);
    if (!who) return reply;
    const meeting = findMeeting(ctx, req.raw.url ?? '');
    if (!meeting || filesOfMeeting(meeting).length === 0)
      return missing(ctx, reply, 'Recording', req.raw.url ?? '', 3301, 'There is no recording for this meeting.');
    const q = req.query as Query;
    // Participant audio is listed here only (Correction Z1); trashed files still carry their deleted_time.
    const body: Record<string, unknown> = {
      ...wireMeeting(ctx, meeting.trashed ? listedView(meeting, 'meeting_recordings')! : meeting),
      password: '',
      recording_play_passcode: passcode(meeting),
      participant_audio_files: (meeting.participant_audio_files ?? []).map((f) => participantFile(ctx, f)),
    };
    if ((q.include_fields ?? '').split(',').includes('download_access_token')) {
      const ttl = q.ttl === undefined ? 86_400 : Number(q.ttl);
      if (!Number.isInteger(ttl) || ttl < 0 || ttl > 604_800) return zoomError(reply, 400, 300, 'Invalid field: ttl.');
      body.download_access_token = ctx.grants.issueDownloadToken(who.accessToken, ttl);
    }
    return body;
  });
}

/** The meeting of /v2/meetings/{ref}/…: a UUID (see meetingRef for encoding) or a numeric id (latest instance). */
export function findMeeting(ctx: SandboxContext, rawUrl: string): ZoomMeeting | undefined {
  const ref = meetingRef(rawUrl);
  if (ref === undefined) return undefined;
  const meeting = /^\d+$/.test(ref) ? ctx.tenant.latestInstance(Number(ref)) : ctx.tenant.meetingByUuid(ref);
  if (!meeting || !ctx.tenant.findUser(meeting.host_id)) return undefined;
  return meeting;
}

/**
 * from/to are UTC dates, both inclusive. Without them Zoom answers for today only (from=today, to=tomorrow).
 * A range over one month is not refused: Zoom silently moves `from` to one month before `to` and echoes the
 * moved date (zoom/api#36, graphaelli/zat#16), so a connector asking for six months gets the last one only.
 */
function recordingWindow(q: Query, nowMs: number): { from: string; to: string } | string {
  const today = Math.floor(nowMs / DAY) * DAY;
  const to = q.to !== undefined ? parseDate(q.to) : q.from !== undefined ? today : today + DAY;
  let from = q.from !== undefined ? parseDate(q.from) : today;
  if (from === undefined || to === undefined) return 'Invalid date format, expected yyyy-mm-dd.';
  if (from > to) return 'The from date must be earlier than the to date.';
  const toDate = new Date(to);
  const floor = Date.UTC(toDate.getUTCFullYear(), toDate.getUTCMonth() - 1, toDate.getUTCDate());
  if (from < floor) from = floor;
  return { from: dayOf(from), to: dayOf(to) };
}

const OPTIONAL_MEETING_FIELDS = [
  'account_id',
  'topic',
  'type',
  'timezone',
  'duration',
  'total_size',
  'recording_count',
  'share_url',
  'recording_play_passcode',
];
const OPTIONAL_FILE_FIELDS = [
  'recording_end',
  'file_extension',
  'file_size',
  'play_url',
  'status',
  'recording_type',
  'meeting_id',
];

export function wireMeeting(ctx: SandboxContext, m: ZoomMeeting): Record<string, unknown> {
  const body = plainMeeting(ctx, m);
  return ctx.variance ? ctx.variance.reshape(body, OPTIONAL_MEETING_FIELDS, m.uuid) : body;
}

function plainMeeting(ctx: SandboxContext, m: ZoomMeeting): Record<string, unknown> {
  const files = m.recording_files;
  return {
    uuid: m.uuid,
    id: m.id,
    account_id: ctx.tenant.accountId,
    host_id: m.host_id,
    topic: m.topic,
    type: m.type,
    start_time: m.start_time,
    timezone: m.timezone,
    duration: m.duration,
    // "includes the recording_files and participant_audio_files files" (Correction Z1)
    total_size: filesOfMeeting(m).reduce((sum, f) => sum + f.file_size, 0),
    recording_count: filesOfMeeting(m).length,
    share_url: `${ctx.mainOrigin()}/rec/share/${files[0]?.downloadKey ?? ''}`,
    recording_files: files.map((f) => wireFile(ctx, f)),
    recording_play_passcode: passcode(m),
  };
}

/** CC and TIMELINE entries come without id, status, file_size, recording_type and play_url, as Zoom sends them. */
function wireFile(ctx: SandboxContext, f: ZoomRecordingFile): Record<string, unknown> {
  const body = plainFile(ctx, f);
  return ctx.variance ? ctx.variance.reshape(body, OPTIONAL_FILE_FIELDS, f.id) : body;
}

function plainFile(ctx: SandboxContext, f: ZoomRecordingFile): Record<string, unknown> {
  const rec = `${ctx.mainOrigin()}/rec`;
  const download = `${ctx.downloadUrlOrigin()}/rec`;
  const trashed = f.deleted_time ? { deleted_time: f.deleted_time } : {};
  if (!f.idOnWire) {
    return {
      meeting_id: f.meeting_id,
      recording_start: f.recording_start,
      recording_end: f.recording_end,
      file_type: f.file_type,
      file_extension: f.file_extension,
      download_url: `${download}/download/${f.downloadKey}`,
      ...trashed,
    };
  }
  return {
    ...trashed,
    id: f.id,
    meeting_id: f.meeting_id,
    recording_start: f.recording_start,
    recording_end: f.recording_end,
    file_type: f.file_type,
    file_extension: f.file_extension,
    file_size: f.file_size,
    play_url: `${rec}/play/${f.downloadKey}`,
    download_url: `${download}/download/${f.downloadKey}`,
    status: 'completed',
    recording_type: f.recording_type,
  };
}

function passcode(m: ZoomMeeting): string {
  return m.recording_files[0]?.downloadKey.slice(0, 32) ?? '';
}

/**
 * What a listing shows of a meeting (Correction Z2): the ordinary one its files not in the trash; `trash=true`
 * with `meeting_recordings` the meetings deleted whole; with `recording_file` the files deleted one by one from
 * meetings that are not. Every trashed file carries `deleted_time`. Undefined: the listing does not show it.
 */
function listedView(
  m: ZoomMeeting,
  listing: 'live' | 'meeting_recordings' | 'recording_file',
): ZoomMeeting | undefined {
  if (listing === 'meeting_recordings') {
    if (!m.trashed) return undefined;
    const at = m.trashed.deleted_time;
    return { ...m, recording_files: m.recording_files.map((f) => ({ ...f, deleted_time: f.deleted_time ?? at })) };
  }
  if (m.trashed) return undefined;
  const files = m.recording_files.filter((f) => (listing === 'live') === (f.deleted_time === undefined));
  return files.length > 0 ? { ...m, recording_files: files } : undefined;
}

function participantFile(ctx: SandboxContext, f: ZoomRecordingFile): Record<string, unknown> {
  const { recording_type: _type, ...wire } = plainFile(ctx, f);
  return { ...wire, file_name: f.file_name, file_path: '' };
}
