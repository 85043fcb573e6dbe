// What Custody reads from Zoom's event payloads (reference provider-events.md §1.6): which events start
// targeted work, whose (the custodian), for which content, and the business key repeated deliveries share.
// Every field is optional on the wire; anything unexpected makes the event "not needed", never an error.
import crypto from 'node:crypto';
import {
  chatScope,
  enabledContent,
  ownerSelected,
  type ConfFilters,
  type ContentType,
} from '../../domain/filters/conf.ts';
import { storable } from '../../domain/text.ts';
import type { WebhookEventFacts, WebhookEvents } from '../types.ts';

export interface ZoomEventFacts {
  event: string;
  accountId: string;
  /** Zoom user id (or, lacking one, the e-mail) of the person whose content changed. */
  custodian: string | null;
  /** Content types of a collection that this event can change; an empty list: nothing Custody collects. */
  content: ContentType[];
  dedupKey: string;
}

const RECORDING = new Set(['recording.completed', 'recording.transcript_completed']);
const SUMMARY = new Set(['meeting.summary_completed', 'meeting.summary_updated']);
const CHAT = new Set(['chat_message.sent', 'chat_message.updated', 'chat_message.deleted']);
const TEAM_CHAT = /^team_chat\.(channel|dm)_message_(posted|updated|deleted)$/;

const rec = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
// An id the database cannot store (NUL, a lone surrogate) is no id: the event then concerns no known account or
// user, as one from an unknown account, and is acknowledged (a 4xx would only be retried, then suspend the event type).
const str = (v: unknown): string | null =>
  typeof v === 'string' && v.length > 0 && storable(v) ? v : typeof v === 'number' ? String(v) : null;

export function isNeededZoomEvent(event: string): boolean {
  return RECORDING.has(event) || SUMMARY.has(event) || CHAT.has(event) || TEAM_CHAT.test(event);
}

/** The facts of a needed event, or null for events Custody does not act on. */
export function zoomEventFacts(body: unknown): ZoomEventFacts | null {
  const b = rec(body);
  const event = str(b.event);
  if (!event || !isNeededZoomEvent(event)) return null;
  const payload = rec(b.payload);
  const object = rec(payload.object);
  const accountId = str(payload.account_id) ?? '';
  const hash = (parts: unknown[]) => crypto.createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  if (RECORDING.has(event)) {
    const files = Array.isArray(object.recording_files)
      ? object.recording_files.map((f) => str(rec(f).id) ?? '').sort()
      : [];
    // Duplicates differ in download_url and download_token only (reference §1.5): neither is part of the key.
    const content: ContentType[] = event === 'recording.completed' ? ['audio', 'video', 'transcript'] : ['transcript'];
    return {
      event,
      accountId,
      custodian: str(object.host_id) ?? str(object.host_email),
      content,
      dedupKey: hash([event, accountId, str(object.uuid), files]),
    };
  }
  if (SUMMARY.has(event)) {
    const key = [
      event,
      accountId,
      str(object.meeting_uuid),
      str(object.summary_last_modified_time) ?? str(object.summary_created_time),
    ];
    return {
      event,
      accountId,
      custodian: str(object.meeting_host_id) ?? str(object.meeting_host_email),
      content: ['AI-meeting-notes'],
      dedupKey: hash(key),
    };
  }
  // Chat: the operator is the account's user who sent, edited or deleted the message.
  const custodian = str(payload.operator_id) ?? str(payload.operator);
  const messageId = str(object.id) ?? str(object.message_id);
  const when = str(object.timestamp) ?? str(object.date_time) ?? str(b.event_ts);
  return { event, accountId, custodian, content: ['chat'], dedupKey: hash([event, accountId, messageId, when]) };
}

/** The body kept as evidence: `download_token` is a bearer credential for the recording files and is dropped. */
export function storableZoomBody(body: unknown): unknown {
  const { download_token: _dropped, ...rest } = rec(body);
  return rest;
}

/** The Zoom connector's webhook capability (Connector.webhooks). */
export const zoomWebhookEvents: WebhookEvents = {
  provider: 'zoom',
  facts: zoomEventFacts,
  selects(filters: unknown, facts: WebhookEventFacts): boolean {
    const f = filters as ConfFilters;
    const content = (facts as Partial<ZoomEventFacts>).content ?? [];
    // An e-mail (no id in the payload) is matched by the connector against the selected owners' e-mails.
    if (facts.custodian && !facts.custodian.includes('@') && !ownerSelected(f, facts.custodian)) return false;
    const enabled = enabledContent(f);
    const chats = chatScope(f);
    return content.some((t) => (t === 'chat' ? chats.oneToOne || chats.channels !== null : enabled.has(t)));
  },
};
