// RSMF 2.0 (Relativity Short Message Format): an RFC 5322 message whose one base64 attachment `rsmf.zip` holds
// `rsmf_manifest.json` and the files its events name. Fields follow Relativity's manifest schema
// (relativitydev/rsmf-validator-samples, RSMFManifestSchema/rsmf_schema_2_0_0.json) and the header list of
// "Processing an RSMF file" (help.relativity.com): only X-RSMF-Version is required, the rest fill review fields.
import { Readable } from 'node:stream';
import yazl from 'yazl';
import { chatText, type ChatGroup, type ChatMessage, type ChatPerson } from './chat.ts';
import type { ExportItem } from './selection.ts';

const ZIP_TIME = new Date('2000-01-01T00:00:00Z');
/** 57 bytes encode to one 76-character base64 line (RFC 2045 §6.8). */
const LINE_BYTES = 57;

/** The chat files of a group that have content to put in rsmf.zip. */
export const storedFiles = (g: ChatGroup) =>
  g.files.filter((a) => a.item.sha256 !== null && a.item.content_state === 'stored');

/**
 * The edits the chat reports returned, by the message they changed, for messages of this group: RSMF's `edits` of
 * that message's event (`previous` the text an edit replaced, `new` the text the next edit replaced or, for the last
 * one, the message as it stands), in the order they were made.
 */
function editsByMessage(g: ChatGroup) {
  const ids = new Set(g.messages.filter((m) => !m.edit).map((m) => m.id));
  const edits = new Map<string, ChatMessage[]>();
  for (const m of g.messages)
    if (m.edit && ids.has(m.edit.of)) edits.set(m.edit.of, [...(edits.get(m.edit.of) ?? []), m]);
  for (const list of edits.values()) list.sort((a, b) => ((a.edit!.at ?? '') < (b.edit!.at ?? '') ? -1 : 1));
  return edits;
}

const rsmfEdits = (m: ChatMessage, edits: ChatMessage[]) =>
  edits.map((e, k) => ({
    participant: e.from.id,
    ...(e.edit!.at && { timestamp: e.edit!.at }),
    previous: e.text,
    new: k + 1 < edits.length ? edits[k + 1].text : m.text,
  }));

/**
 * rsmf_manifest.json: participants, one conversation, and every message an event whose id is the message id; an
 * edit of a message of the same day is part of that message's event (`edits`), not an event of its own.
 */
export function rsmfManifest(g: ChatGroup) {
  const edits = editsByMessage(g);
  const folded = new Set([...edits.values()].flat());
  const messages = g.messages.filter((m) => !folded.has(m));
  const ids = new Set(messages.map((m) => m.id));
  const stored = storedFiles(g);
  const direct = g.conversation.type !== 'channel';
  return {
    version: '2.0.0',
    participants: g.participants.map((p) => ({
      id: p.id,
      display: p.name,
      ...(p.email && { email: p.email }),
      ...(p.account_id && { account_id: p.account_id }),
    })),
    conversations: [
      {
        id: g.conversation.id,
        display: g.conversation.name || g.conversation.id,
        platform: 'zoom',
        type: direct ? 'direct' : 'channel',
        participants: g.participants.map((p) => p.id),
        ...(g.ownerId && { custodian: g.ownerId }),
      },
    ],
    events: messages.map((m) => {
      const attachments = stored
        .filter((a) => a.messageId === m.id)
        .map((a) => ({ id: a.zipName, display: a.item.name, ...(a.item.size !== null && { size: a.item.size }) }));
      return {
        id: m.id,
        type: 'message',
        participant: m.from.id,
        conversation: g.conversation.id,
        ...(m.sent_at && { timestamp: m.sent_at }),
        body: m.text,
        // A thread's parent must be an event of this manifest (a reply to an earlier day's message stands alone).
        ...(m.parent_id && ids.has(m.parent_id) && { parent: m.parent_id }),
        ...(m.deleted && { deleted: true }),
        ...(edits.has(m.id) && { edits: rsmfEdits(m, edits.get(m.id)!) }),
        ...(direct && g.ownerId && { direction: m.from.id === g.ownerId ? 'outgoing' : 'incoming' }),
        ...(attachments.length > 0 && { attachments }),
      };
    }),
    eventcollectionid: eventCollectionId(g),
  };
}

/** One id for every day of one conversation (the owner is part of a one-to-one conversation's identity). */
const eventCollectionId = (g: ChatGroup) =>
  g.conversation.type === 'channel' ? `zoom:channel:${g.conversation.id}` : `zoom:${g.custodian}:${g.conversation.id}`;

/**
 * RFC 2047 encoded-words of at most 52 characters (so that a header's first word fits its line), split on character
 * boundaries.
 */
export function encodeWords(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  const words: string[] = [];
  let chunk = '';
  for (const ch of text) {
    if (Buffer.byteLength(chunk + ch, 'utf8') > 30) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join(' ');
}

/** A display name as an RFC 5322 phrase: encoded-words, a plain atom sequence, or a quoted string. */
function phrase(name: string): string {
  if (!/^[\x20-\x7e]*$/.test(name)) return encodeWords(name);
  if (/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~ -]+$/.test(name)) return name;
  return `"${name.replace(/(["\\])/g, '\\$1')}"`;
}

/** A participant as a mailbox; one without a known e-mail gets an address under the reserved `.invalid` TLD. */
export function mailbox(p: ChatPerson): string {
  const local = (p.account_id || p.id).replace(/[^A-Za-z0-9_-]/g, '_') || 'unknown';
  const address = p.email && /^[\x21-\x7e]+@[\x21-\x7e]+$/.test(p.email) ? p.email : `${local}@zoom.invalid`;
  return `${phrase(p.name || address)} <${address}>`;
}

/**
 * A header of a list of values (`,` after each but the last), folded onto lines of at most 78 characters where it
 * can be (RFC 5322 §2.2.3): a line break goes only before a space the value already has, so unfolding restores it.
 */
export function header(name: string, values: string[], separator: ',' | '' = ''): string {
  const words = values.flatMap((v, i) => {
    const w = v.split(' ');
    if (i < values.length - 1) w[w.length - 1] += separator;
    return w;
  });
  let out = `${name}:`;
  let line = out.length;
  words.forEach((word, i) => {
    if (i > 0 && line + 1 + word.length > 78) {
      out += '\r\n';
      line = 0;
    }
    out += ` ${word}`;
    line += 1 + word.length;
  });
  return out;
}

function rfc5322Date(iso: string): string {
  return new Date(iso).toUTCString().replace('GMT', '+0000');
}

/** Base64 of a stream in 76-character CRLF lines, as it flows. */
async function* base64Lines(source: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncGenerator<Buffer> {
  let carry = Buffer.alloc(0);
  const encode = (b: Buffer) => {
    const lines: string[] = [];
    for (let i = 0; i < b.length; i += LINE_BYTES)
      lines.push(`${b.subarray(i, i + LINE_BYTES).toString('base64')}\r\n`);
    return Buffer.from(lines.join(''), 'ascii');
  };
  for await (const chunk of source) {
    const all = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const whole = all.length - (all.length % LINE_BYTES);
    if (whole > 0) yield encode(all.subarray(0, whole));
    carry = Buffer.from(all.subarray(whole));
  }
  if (carry.length > 0) yield encode(carry);
}

export interface RsmfOptions {
  exportId: string;
  /** CUSTODIAN of the load file (X-RSMF-Custodian) */
  custodian: string;
  /** a chat file's bytes */
  open(item: ExportItem): Promise<Readable> | Readable;
}

/**
 * An RSMF 2.0 file as a stream: `X-RSMF-Version: 2.0.0`, From (the first sender) and To (every participant),
 * a text/plain body (the messages, which Relativity takes as extracted text), and exactly one base64 attachment
 * `rsmf.zip` holding `rsmf_manifest.json` and the conversation-day's chat files, each named by its attachment id.
 * The chat files stream from the blob store through the ZIP and the base64 encoder; nothing is held whole.
 */
export function rsmfStream(g: ChatGroup, opts: RsmfOptions): Readable {
  const manifest = rsmfManifest(g);
  const stored = storedFiles(g);
  const times = manifest.events
    .map((e) => e.timestamp)
    .filter((t): t is string => typeof t === 'string')
    .sort();
  const begin = times[0] ?? `${g.day}T00:00:00.000Z`;
  const end = times[times.length - 1] ?? begin;
  const boundary = `custody-rsmf-${opts.exportId}`;
  const first = g.participants.find((p) => p.id === g.messages[0]?.from.id);
  const title = g.conversation.name || g.conversation.id;
  const head = [
    ...(first ? [header('From', [mailbox(first)])] : []),
    header(
      'To',
      g.participants.map((p) => mailbox(p)),
      ',',
    ),
    header('Subject', [encodeWords(`Zoom ${title} ${g.day}`)]),
    `Date: ${rfc5322Date(begin)}`,
    'MIME-Version: 1.0',
    'X-RSMF-Version: 2.0.0',
    'X-RSMF-Generator: Custody',
    'X-RSMF-Application: Zoom Team Chat',
    header('X-RSMF-Custodian', [encodeWords(opts.custodian || g.custodian)]),
    header(
      'X-RSMF-Participants',
      g.participants.map((p) => encodeWords(p.name)),
      ',',
    ),
    `X-RSMF-BeginDate: ${begin}`,
    `X-RSMF-EndDate: ${end}`,
    `X-RSMF-EventCount: ${manifest.events.length}`,
    `X-RSMF-AttachmentCount: ${stored.length}`,
    header('X-RSMF-EventCollectionID', [manifest.eventcollectionid]),
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
  ];
  const preview = Buffer.from(chatText(g), 'utf8');
  const opening = [
    `${head.join('\r\n')}\r\n`,
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    '',
  ].join('\r\n');
  const attachmentHead = [
    `--${boundary}`,
    'Content-Type: application/zip; name="rsmf.zip"',
    'Content-Disposition: attachment; filename="rsmf.zip"',
    'Content-Transfer-Encoding: base64',
    '',
    '',
  ].join('\r\n');

  async function* parts(): AsyncGenerator<Buffer> {
    yield Buffer.from(opening, 'utf8');
    yield* base64Lines([preview]);
    yield Buffer.from(attachmentHead, 'ascii');
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(JSON.stringify(manifest, null, 2), 'utf8'), 'rsmf_manifest.json', {
      mtime: ZIP_TIME,
      compress: true,
    });
    for (const a of stored)
      zip.addReadStreamLazy(a.zipName, { mtime: ZIP_TIME, compress: false }, (cb) => {
        Promise.resolve()
          .then(() => opts.open(a.item))
          .then(
            (s) => cb(null, s),
            (err: Error) => cb(err, undefined as never),
          );
      });
    zip.end();
    yield* base64Lines(zip.outputStream as AsyncIterable<Buffer>);
    yield Buffer.from(`--${boundary}--\r\n`, 'ascii');
  }
  return Readable.from(parts());
}
