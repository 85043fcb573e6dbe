import yazl from 'yazl';
import type { ExportItem } from './selection.ts';

/** One chat message as the export reads it. */
export interface ChatMessage {
  id: string;
  conversation: { id: string; name: string; type: string };
  from: { id: string; name: string };
  sent_at: string | null;
  text: string;
  files: Array<{ id: string; name: string; size: number | null }>;
  parent_id: string | null;
}

/**
 * Where a message's facts live today: the item's text (the message) and its metadata (connectors/zoom/items.ts
 * messageItem). The one place to adapt when messages become JSON content blobs.
 */
export function chatMessageOf(item: ExportItem): ChatMessage {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- stored provider metadata, read field by field through String()/typeof
  const m = JSON.parse(item.metadata || '{}') as Record<string, any>;
  const files = Array.isArray(m.files) ? (m.files as Array<Record<string, unknown>>) : [];
  const sender = String(m.sender_member_id ?? m.sender ?? 'unknown');
  return {
    id: item.source_id,
    conversation: {
      id: String(m.conversation_id ?? item.custodian ?? 'unknown'),
      name: String(m.conversation_name ?? m.conversation_id ?? ''),
      type: String(m.conversation_type ?? (item.kind === 'channel_message' ? 'channel' : 'one-to-one')),
    },
    from: { id: sender, name: String(m.sender_display_name ?? m.sender ?? sender) },
    sent_at: isoOrNull(item.created_datetime),
    text: item.text ?? '',
    files: files.map((f) => ({
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- stored provider metadata: ids are scalars
      id: String(f.file_id ?? ''),
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- stored provider metadata: names are strings
      name: String(f.file_name ?? ''),
      size: typeof f.file_size === 'number' ? f.file_size : null,
    })),
    parent_id: typeof m.reply_main_message_id === 'string' && m.reply_main_message_id ? m.reply_main_message_id : null,
  };
}

export function isoOrNull(value: string | null | undefined): string | null {
  if (!value) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** A conversation's messages of one UTC day, sent order. */
export interface ChatGroup {
  key: string;
  conversation: ChatMessage['conversation'];
  day: string;
  custodian: string;
  messages: ChatMessage[];
  items: ExportItem[];
}

export function participantsOf(g: ChatGroup): Array<{ id: string; name: string }> {
  const seen = new Map<string, string>();
  for (const m of g.messages) if (!seen.has(m.from.id)) seen.set(m.from.id, m.from.name);
  return [...seen].map(([id, name]) => ({ id, name }));
}

export function chatJson(g: ChatGroup): Buffer {
  const doc = {
    conversation: g.conversation,
    participants: participantsOf(g),
    messages: g.messages.map((m) => ({ id: m.id, from: m.from.id, sent_at: m.sent_at, text: m.text, files: m.files })),
  };
  return Buffer.from(`${JSON.stringify(doc, null, 2)}\n`, 'utf8');
}

export function chatText(g: ChatGroup): string {
  return g.messages.map((m) => `[${m.sent_at ?? ''}] ${m.from.name}: ${m.text}`).join('\n');
}

/** RSMF 2.0 rsmf_manifest.json: participants, conversations, events (every message an event whose id is its id). */
export function rsmfManifest(g: ChatGroup) {
  const participants = participantsOf(g);
  return {
    version: '2.0.0',
    participants: participants.map((p) => ({ id: p.id, display: p.name })),
    conversations: [
      {
        id: g.conversation.id,
        display: g.conversation.name || g.conversation.id,
        platform: 'zoom',
        type: g.conversation.type === 'channel' ? 'channel' : 'direct',
        participants: participants.map((p) => p.id),
      },
    ],
    events: g.messages.map((m) => ({
      id: m.id,
      type: 'message',
      participant: m.from.id,
      conversation: g.conversation.id,
      timestamp: m.sent_at ?? undefined,
      body: m.text,
      ...(m.parent_id && { parent: m.parent_id }),
    })),
  };
}

const ZIP_TIME = new Date('2000-01-01T00:00:00Z');

function zipBuffer(entries: Array<{ name: string; bytes: Buffer }>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(e.bytes, e.name, { mtime: ZIP_TIME, compress: true });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });
}

function rfc2047(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

function base64Lines(bytes: Buffer): string {
  return (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');
}

/**
 * An RSMF 2.0 file: an RFC 5322 message with `X-RSMF-Version: 2.0.0` and exactly one base64 attachment `rsmf.zip`
 * holding `rsmf_manifest.json` (the messages' own files are not collected as content today: none are added).
 */
export async function rsmfFile(g: ChatGroup, exportId: string): Promise<Buffer> {
  const manifest = rsmfManifest(g);
  const zip = await zipBuffer([
    { name: 'rsmf_manifest.json', bytes: Buffer.from(JSON.stringify(manifest, null, 2), 'utf8') },
  ]);
  const times = g.messages
    .map((m) => m.sent_at)
    .filter((t): t is string => t !== null)
    .sort();
  const begin = times[0] ?? `${g.day}T00:00:00.000Z`;
  const boundary = `custody-rsmf-${exportId}`;
  const preview = chatText(g);
  const head = [
    `From: ${rfc2047(participantsOf(g)[0]?.name ?? 'Custody')} <custody-export@invalid>`,
    `To: ${rfc2047(g.conversation.name || g.conversation.id)} <custody-export@invalid>`,
    `Subject: ${rfc2047(`${g.conversation.name || g.conversation.id} ${g.day}`)}`,
    `Date: ${new Date(begin).toUTCString().replace('GMT', '+0000')}`,
    'MIME-Version: 1.0',
    'X-RSMF-Version: 2.0.0',
    'X-RSMF-Generator: Custody',
    `X-RSMF-BeginDate: ${begin}`,
    `X-RSMF-EndDate: ${times[times.length - 1] ?? begin}`,
    `X-RSMF-EventCount: ${g.messages.length}`,
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
  ];
  const body = [
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64Lines(Buffer.from(preview, 'utf8')),
    `--${boundary}`,
    'Content-Type: application/zip',
    'Content-Disposition: attachment; filename="rsmf.zip"',
    'Content-Transfer-Encoding: base64',
    '',
    base64Lines(zip),
    `--${boundary}--`,
    '',
  ];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body.join('\r\n')}`, 'utf8');
}
