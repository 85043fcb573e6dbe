// Zoom's event delivery (reference provider-events.md §1.2–§1.5, §4): every POST signed with
// x-zm-signature = "v0=" + hex HMAC-SHA256(secret token, "v0:{x-zm-request-timestamp}:{raw body}"), the endpoint
// validated with endpoint.url_validation before any event, 2xx within 3 s or the attempt failed, retries at
// +5/+25/+85 minutes (sandbox clock). Faults: duplicates, out-of-order, delayed delivery, stale timestamps, bad
// signatures. Sandbox controls add a recording or a chat message and deliver the matching events.
import { createHmac, randomBytes } from 'node:crypto';
import { transcriptVtt } from './content.ts';
import type { SandboxContext } from './http.ts';
import { wireMeeting } from './routes-recordings.ts';
import type { ZoomChatMessage, ZoomMeeting, ZoomRecordingFile } from './tenant.ts';

export interface ZoomWebhookFaults {
  /** Deliver every event twice. */
  duplicate: boolean;
  /** The duplicate differs in download_token and download_url query, as reported (reference §1.5). */
  duplicateVariant: boolean;
  /** Hold events and deliver them newest first on the next `release()`. */
  outOfOrder: boolean;
  /** Deliver this long after the change (sandbox clock; `deliverDue()` or the pump sends it). */
  delayMs: number;
  /** Sign with a timestamp this many seconds old. */
  staleTimestampSeconds: number;
  badSignature: boolean;
}

export interface ZoomWebhookAttempt {
  event: string;
  url: string;
  status: number | null;
  error?: string;
  timestamp: string;
  body: string;
  at: string;
  retry: number;
}

interface Pending {
  body: Record<string, unknown>;
  dueAt: number;
  retry: number;
  /** The first attempt's timestamp: a retry keeps it (Zoom does not say it refreshes it). */
  timestamp?: number;
}

const RETRY_GAPS_MS = [5 * 60_000, 20 * 60_000, 60 * 60_000];

export interface ZoomWebhooks {
  faults: ZoomWebhookFaults;
  attempts: ZoomWebhookAttempt[];
  /** Registers the endpoint and validates it (endpoint.url_validation); false (and no events) when it fails. */
  subscribe(input: { url: string; secretToken: string }): Promise<boolean>;
  /** A meeting of this host finishes recording now: recording.completed, then recording.transcript_completed. */
  addRecording(host: string, opts?: { topic?: string; transcript?: boolean }): Promise<ZoomMeeting>;
  /** A user sends a one-to-one (`to`) or channel (`channelId`) message now: chat_message.sent. */
  addChatMessage(input: { from: string; to?: string; channelId?: string; text: string }): Promise<ZoomChatMessage>;
  /** Signs and delivers any event (real payload shapes are the caller's business). */
  emit(event: string, payload: Record<string, unknown>, extra?: Record<string, unknown>): Promise<void>;
  /** Sends what is due by the sandbox clock (delayed events, retries). */
  deliverDue(): Promise<number>;
  /** Sends events held by the out-of-order fault, newest first. */
  release(): Promise<number>;
  close(): void;
}

export function createZoomWebhooks(ctx: SandboxContext, opts: { clientId: string; pumpMs?: number }): ZoomWebhooks {
  const faults: ZoomWebhookFaults = {
    duplicate: false,
    duplicateVariant: false,
    outOfOrder: false,
    delayMs: 0,
    staleTimestampSeconds: 0,
    badSignature: false,
  };
  const attempts: ZoomWebhookAttempt[] = [];
  let endpoint: { url: string; secretToken: string; validated: boolean } | null = null;
  let queue: Pending[] = [];
  let held: Pending[] = [];
  let seq = 0;
  const nowMs = () => ctx.now().getTime();

  const post = async (
    body: Record<string, unknown>,
    timestamp: number,
    retry: number,
  ): Promise<{ status: number | null; text: string }> => {
    const ep = endpoint!;
    const raw = JSON.stringify(body);
    const ts = String(timestamp);
    const sig = createHmac('sha256', faults.badSignature ? `${ep.secretToken}x` : ep.secretToken)
      .update(`v0:${ts}:${raw}`)
      .digest('hex');
    const attempt: ZoomWebhookAttempt = {
      event: String(body.event),
      url: ep.url,
      status: null,
      timestamp: ts,
      body: raw,
      at: ctx.now().toISOString(),
      retry,
    };
    attempts.push(attempt);
    try {
      const res = await fetch(ep.url, {
        method: 'POST',
        headers: {
          'user-agent': 'Zoom Marketplace/1.0a',
          'content-type': 'application/json; charset=utf-8',
          'x-zm-request-timestamp': ts,
          'x-zm-signature': `v0=${sig}`,
          'x-zm-trackingid': `v=2.0;clid=${opts.clientId};rid=${randomBytes(8).toString('hex')}`,
          clientid: opts.clientId,
        },
        body: raw,
        signal: AbortSignal.timeout(3000),
      });
      attempt.status = res.status;
      return { status: res.status, text: await res.text() };
    } catch (err) {
      attempt.error = (err as Error).name === 'TimeoutError' ? 'no answer within 3 s' : (err as Error).message;
      return { status: null, text: '' };
    }
  };

  const attempt = async (p: Pending) => {
    if (!endpoint?.validated) return;
    const timestamp = p.timestamp ?? Math.floor(nowMs() / 1000) - faults.staleTimestampSeconds;
    const { status } = await post(p.body, timestamp, p.retry);
    if (status !== null && status >= 200 && status < 300) return;
    const gap = RETRY_GAPS_MS[p.retry];
    // After the third retry Zoom gives up on the event.
    if (gap !== undefined) queue.push({ body: p.body, dueAt: nowMs() + gap, retry: p.retry + 1, timestamp });
  };

  const deliverDue = async () => {
    const now = nowMs();
    const due = queue.filter((p) => p.dueAt <= now);
    queue = queue.filter((p) => p.dueAt > now);
    for (const p of due) {
      if (faults.outOfOrder && p.retry === 0) held.push(p);
      else await attempt(p);
    }
    return due.length;
  };

  const pump = setInterval(() => void deliverDue(), opts.pumpMs ?? 200);
  pump.unref();

  const emit = async (event: string, payload: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const body = { event, event_ts: nowMs(), ...extra, payload: { account_id: ctx.tenant.accountId, ...payload } };
    const dueAt = nowMs() + faults.delayMs;
    queue.push({ body, dueAt, retry: 0 });
    if (faults.duplicate) {
      const copy = faults.duplicateVariant && typeof extra.download_token === 'string' ? variant(body) : body;
      queue.push({ body: copy, dueAt, retry: 0 });
    }
    await deliverDue();
  };

  const recordingPayload = (m: ZoomMeeting, files: ZoomRecordingFile[]) => {
    const object = { ...wireMeeting(ctx, { ...m, recording_files: files }), host_email: m.host_email };
    return { object };
  };

  return {
    faults,
    attempts,
    async subscribe({ url, secretToken }) {
      endpoint = { url, secretToken, validated: false };
      const plainToken = randomBytes(16).toString('base64url');
      const { status, text } = await post(
        { event: 'endpoint.url_validation', event_ts: nowMs(), payload: { plainToken } },
        Math.floor(nowMs() / 1000),
        0,
      );
      let answer: { plainToken?: unknown; encryptedToken?: unknown } = {};
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {
        // "URL validation failed"
      }
      const expected = createHmac('sha256', secretToken).update(plainToken).digest('hex');
      endpoint.validated = status === 200 && answer.plainToken === plainToken && answer.encryptedToken === expected;
      return endpoint.validated;
    },
    async addRecording(hostRef, o = {}) {
      const host = ctx.tenant.findUser(hostRef);
      if (!host) throw new Error(`sandbox: unknown Zoom user ${hostRef}`);
      const n = ++seq;
      const end = nowMs() - 60_000;
      const start = end - 30 * 60_000;
      const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const uuid = `${randomBytes(16).toString('base64')}`;
      const meeting: ZoomMeeting = {
        uuid,
        id: 70_000_000_000 + n,
        host_id: host.id,
        host_email: host.email,
        topic: o.topic ?? `Event-driven meeting ${n}`,
        type: 2,
        start_time: iso(start),
        duration: 30,
        timezone: host.timezone,
        recording_files: [],
      };
      const file = (
        file_type: ZoomRecordingFile['file_type'],
        ext: ZoomRecordingFile['file_extension'],
        recording_type: string,
        contentType: string,
        size: number,
      ): ZoomRecordingFile => ({
        id: `${randomBytes(4).toString('hex')}-${randomBytes(2).toString('hex')}-4${randomBytes(2).toString('hex').slice(1)}-a${randomBytes(2).toString('hex').slice(1)}-${randomBytes(6).toString('hex')}`,
        idOnWire: true,
        meeting_id: uuid,
        recording_start: iso(start + 4000),
        recording_end: iso(end),
        file_type,
        file_extension: ext,
        file_size: size,
        recording_type,
        downloadKey: `${randomBytes(36).toString('base64url')}.${randomBytes(12).toString('base64url')}`,
        contentType,
      });
      const video = file('MP4', 'MP4', 'shared_screen_with_speaker_view', 'video/mp4', 4096);
      meeting.recording_files.push(video);
      ctx.tenant.addMeeting(meeting);
      await emit('recording.completed', recordingPayload(meeting, [video]), {
        download_token: randomBytes(24).toString('base64url'),
      });
      if (o.transcript !== false) {
        const vtt = transcriptVtt(`${uuid}:t`, [host.display_name], 30);
        const transcript = file('TRANSCRIPT', 'VTT', 'audio_transcript', 'text/vtt', vtt.length);
        ctx.tenant.textBodies.set(transcript.id, vtt);
        ctx.tenant.addFile(meeting, transcript);
        await emit('recording.transcript_completed', recordingPayload(meeting, [transcript]), {
          download_token: randomBytes(24).toString('base64url'),
        });
      }
      return meeting;
    },
    async addChatMessage({ from, to, channelId, text }) {
      const sender = ctx.tenant.findUser(from);
      if (!sender) throw new Error(`sandbox: unknown Zoom user ${from}`);
      const at = nowMs();
      const message: ZoomChatMessage = {
        id: `${randomBytes(4).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(6).toString('hex')}`,
        sender: sender.email,
        senderId: sender.id,
        sender_display_name: sender.display_name,
        date_time: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        timestamp: at,
        message: text,
        status: 'Normal',
      };
      const object: Record<string, unknown> = {
        id: message.id,
        date_time: message.date_time,
        timestamp: at,
        message: text,
      };
      if (channelId) {
        const channel = ctx.tenant.channels.find((c) => c.id === channelId);
        if (!channel) throw new Error(`sandbox: unknown channel ${channelId}`);
        (ctx.tenant.channelMessages[channel.id] ??= []).push(message);
        Object.assign(object, {
          type: 'to_channel',
          channel_id: channel.id,
          channel_name: channel.name,
          session_id: channel.jid,
        });
      } else {
        const peer = to ? ctx.tenant.anyUser(to) : undefined;
        if (!peer) throw new Error(`sandbox: unknown peer ${to}`);
        let conversation = ctx.tenant.oneToOne.find(
          (c) => c.userIds.includes(sender.id) && c.userIds.includes(peer.id),
        );
        if (!conversation) ctx.tenant.oneToOne.push((conversation = { userIds: [sender.id, peer.id], messages: [] }));
        conversation.messages.push(message);
        Object.assign(object, {
          type: 'to_contact',
          contact_email: peer.email,
          contact_id: peer.id,
          session_id: peer.id,
        });
      }
      await emit('chat_message.sent', { operator: sender.email, operator_id: sender.id, object });
      return message;
    },
    emit,
    deliverDue,
    async release() {
      const out = held.reverse();
      held = [];
      for (const p of out) await attempt(p);
      return out.length;
    },
    close() {
      clearInterval(pump);
    },
  };
}

function variant(body: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(body) as {
    download_token?: string;
    payload: { object?: { recording_files?: Array<{ download_url?: string }> } };
  };
  copy.download_token = randomBytes(24).toString('base64url');
  for (const f of copy.payload.object?.recording_files ?? [])
    if (f.download_url) f.download_url = `${f.download_url}?dup=${randomBytes(4).toString('hex')}`;
  return copy;
}
