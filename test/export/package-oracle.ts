// Reading an export package the way a review platform does, from the issue 24 text alone (nothing from src/).
import JSZip from 'jszip';

export const REQUIRED_FIELDS = [
  'DOCID',
  'PARENT_DOCID',
  'BEGATTACH',
  'ENDATTACH',
  'CUSTODIAN',
  'CUSTODIAN_NAME',
  'CUSTODIAN_EMAIL',
  'ALL_CUSTODIANS',
  'SOURCE',
  'KIND',
  'FILENAME',
  'ORIGINAL_PATH',
  'FILE_SIZE',
  'MD5',
  'SHA256',
  'PROVIDER_HASH',
  'DATE_CREATED',
  'DATE_MODIFIED',
  'DATE_SENT',
  'FROM',
  'TO',
  'CONVERSATION',
  'NATIVE_PATH',
  'TEXT_PATH',
  'ITEM_ID',
  'RUN_ID',
  'COLLECTED_AT',
];

/** Concordance: UTF-8 BOM, CRLF records, fields in þ separated by U+0014; þþ is a þ, ® a line break. */
export function readDat(bytes: Buffer): Array<Record<string, string>> {
  if (bytes[0] !== 0xef || bytes[1] !== 0xbb || bytes[2] !== 0xbf) throw new Error('no UTF-8 BOM');
  const text = bytes.subarray(3).toString('utf8');
  if (!text.endsWith('\r\n')) throw new Error('last record does not end with CRLF');
  const records = text
    .slice(0, -2)
    .split('\r\n')
    .map((line) => {
      if (!line.startsWith('þ') || !line.endsWith('þ')) throw new Error(`record not qualified: ${line.slice(0, 40)}`);
      return line
        .slice(1, -1)
        .split('þ\u0014þ')
        .map((v) => {
          if (/\r|\n|\u0014/.test(v)) throw new Error('raw line break or separator inside a value');
          if (/(^|[^þ])þ([^þ]|$)/.test(v.replaceAll('þþ', ''))) throw new Error('undoubled þ inside a value');
          return v.replaceAll('þþ', 'þ').replaceAll('®', '\n');
        });
    });
  const [head, ...rows] = records;
  return rows.map((r) => {
    if (r.length !== head.length) throw new Error('record width differs from the header');
    return Object.fromEntries(head.map((h, i) => [h, r[i]]));
  });
}

export function datHeader(bytes: Buffer): string[] {
  return bytes.subarray(3).toString('utf8').split('\r\n')[0].slice(1, -1).split('þ\u0014þ');
}

export async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await JSZip.loadAsync(bytes, { checkCRC32: true });
  const out = new Map<string, Buffer>();
  for (const f of Object.values(zip.files)) if (!f.dir) out.set(f.name, await f.async('nodebuffer'));
  return out;
}

/**
 * RSMF (Relativity "Creating an RSMF file", "Processing an RSMF file"): an RFC 5322 message (ASCII headers, folded
 * lines unfolded) with X-RSMF-Version and exactly one base64 attachment named rsmf.zip holding rsmf_manifest.json.
 */
export async function readRsmf(
  bytes: Buffer,
): Promise<{ headers: Map<string, string>; manifest: any; zip: Map<string, Buffer> }> {
  const split = bytes.indexOf('\r\n\r\n');
  if (split < 0) throw new Error('no header/body separator');
  if (bytes.subarray(0, split).some((b) => b > 0x7e)) throw new Error('a header holds a non-ASCII byte');
  const text = bytes.toString('utf8');
  const headers = new Map<string, string>();
  for (const line of text
    .slice(0, split)
    .replace(/\r\n[ \t]/g, ' ')
    .split('\r\n')) {
    if (line.length > 998) throw new Error('a header line longer than 998 characters');
    const i = line.indexOf(':');
    if (i <= 0) throw new Error(`not a header field: ${line.slice(0, 40)}`);
    const name = line.slice(0, i).toLowerCase();
    if (headers.has(name)) throw new Error(`header ${name} twice`);
    headers.set(name, line.slice(i + 1).trim());
  }
  const boundary = /boundary="([^"]+)"/.exec(headers.get('content-type') ?? '')?.[1];
  if (!boundary) throw new Error('not multipart');
  const parts = text
    .slice(split + 4)
    .split(`--${boundary}`)
    .slice(1, -1);
  const attachments = parts.filter((p) => /Content-Disposition: attachment/i.test(p));
  if (attachments.length !== 1) throw new Error(`${attachments.length} attachments`);
  const att = attachments[0];
  if (!/filename="rsmf\.zip"/.test(att) || !/Content-Transfer-Encoding: base64/i.test(att))
    throw new Error('the attachment is not a base64 rsmf.zip');
  const zip = await unzip(Buffer.from(att.slice(att.indexOf('\r\n\r\n') + 4).replace(/\s+/g, ''), 'base64'));
  const manifest = zip.get('rsmf_manifest.json');
  if (!manifest) throw new Error('no rsmf_manifest.json');
  return { headers, manifest: JSON.parse(manifest.toString('utf8')), zip };
}

const ISO_8601 = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?$/;
const EVENT_TYPES = ['message', 'disclaimer', 'join', 'leave', 'history', 'unknown'];
const optionalString = (v: unknown) => v === undefined || typeof v === 'string';

/**
 * RSMF 2.0 manifest against Relativity's rsmf_schema_2_0_0.json (relativitydev/rsmf-validator-samples): required
 * `version`, `participants[].id`, `conversations[].{id,platform,participants}`, `events[].type`; the enums; every
 * reference (conversation participants and custodian, event participant, conversation and thread parent) resolves;
 * each edit's participant (required) resolves and its timestamp is ISO 8601; and, as Relativity's validator reports, every attachment id is a file of rsmf.zip and every file is referenced.
 */
export function rsmfProblems(m: any, zip?: Map<string, Buffer>): string[] {
  const out: string[] = [];
  if (typeof m.version !== 'string' || m.version !== '2.0.0') out.push(`version ${m.version}`);
  for (const k of ['participants', 'conversations', 'events']) if (!Array.isArray(m[k])) out.push(`no ${k} array`);
  const people = new Set<string>();
  for (const p of m.participants ?? []) {
    if (typeof p.id !== 'string' || !p.id) out.push('participant without id');
    if (people.has(p.id)) out.push(`participant ${p.id} twice`);
    people.add(p.id);
    for (const k of ['display', 'email', 'account_id', 'avatar'])
      if (!optionalString(p[k])) out.push(`participant ${p.id} ${k} not a string`);
  }
  const convs = new Map<string, Set<string>>();
  for (const c of m.conversations ?? []) {
    if (typeof c.id !== 'string' || !c.id) out.push('conversation without id');
    if (typeof c.platform !== 'string' || !c.platform) out.push(`conversation ${c.id} without platform`);
    if (!Array.isArray(c.participants)) out.push(`conversation ${c.id} without participants`);
    if (c.type !== undefined && !['direct', 'channel'].includes(c.type)) out.push(`conversation type ${c.type}`);
    for (const p of c.participants ?? []) if (!people.has(p)) out.push(`conversation participant ${p} unknown`);
    if (c.custodian !== undefined && !(c.participants ?? []).includes(c.custodian))
      out.push(`conversation custodian ${c.custodian} not a participant`);
    convs.set(c.id, new Set());
  }
  for (const e of m.events ?? []) if (typeof e.id === 'string') convs.get(e.conversation)?.add(e.id);
  const referenced = new Set<string>();
  for (const e of m.events ?? []) {
    if (!EVENT_TYPES.includes(e.type)) out.push(`event type ${e.type}`);
    if (!optionalString(e.id) || !optionalString(e.body)) out.push(`event ${e.id} id or body not a string`);
    if (e.participant !== undefined && !people.has(e.participant))
      out.push(`event participant ${e.participant} unknown`);
    if (e.conversation !== undefined && !convs.has(e.conversation))
      out.push(`event conversation ${e.conversation} unknown`);
    if (e.timestamp !== undefined && !ISO_8601.test(e.timestamp)) out.push(`event timestamp ${e.timestamp}`);
    if (e.parent !== undefined && !convs.get(e.conversation)?.has(e.parent))
      out.push(`event parent ${e.parent} unknown`);
    if (e.deleted !== undefined && typeof e.deleted !== 'boolean') out.push('event deleted not a boolean');
    if (e.edits !== undefined && !Array.isArray(e.edits)) out.push(`event ${e.id} edits not an array`);
    for (const x of e.edits ?? []) {
      if (typeof x.participant !== 'string' || !people.has(x.participant))
        out.push(`event ${e.id} edit participant ${x.participant} unknown`);
      if (x.timestamp !== undefined && !ISO_8601.test(x.timestamp)) out.push(`edit timestamp ${x.timestamp}`);
      if (!optionalString(x.previous) || !optionalString(x.new)) out.push(`event ${e.id} edit text not a string`);
    }
    if (e.direction !== undefined && !['incoming', 'outgoing'].includes(e.direction))
      out.push(`direction ${e.direction}`);
    for (const a of e.attachments ?? []) {
      if (typeof a.id !== 'string' || !a.id) out.push('attachment without id');
      if (a.size !== undefined && !Number.isInteger(a.size)) out.push(`attachment ${a.id} size not an integer`);
      if (zip && !zip.has(a.id)) out.push(`attachment ${a.id} not in rsmf.zip`);
      referenced.add(a.id);
    }
  }
  for (const name of zip?.keys() ?? []) {
    if (name.includes('/')) out.push(`${name} not at the root of rsmf.zip`);
    if (name !== 'rsmf_manifest.json' && !referenced.has(name)) out.push(`${name} in rsmf.zip has no reference`);
  }
  return out;
}

/** The optional X-RSMF- roll-up headers, where present, agree with the manifest. */
export function rsmfHeaderProblems(h: Map<string, string>, m: any): string[] {
  const out: string[] = [];
  if (h.get('x-rsmf-version') !== m.version) out.push('X-RSMF-Version differs from the manifest version');
  const count = (k: string, n: number) =>
    h.has(k) && Number(h.get(k)) !== n && out.push(`${k} ${h.get(k)} is not ${n}`);
  count('x-rsmf-eventcount', m.events.length);
  count('x-rsmf-attachmentcount', m.events.flatMap((e: any) => e.attachments ?? []).length);
  const stamps = m.events.map((e: any) => Date.parse(e.timestamp)).sort((a: number, b: number) => a - b);
  for (const [k, t] of [
    ['x-rsmf-begindate', stamps[0]],
    ['x-rsmf-enddate', stamps[stamps.length - 1]],
  ] as const)
    if (h.has(k) && (!ISO_8601.test(h.get(k)!) || Date.parse(h.get(k)!) !== t)) out.push(`${k} ${h.get(k)}`);
  if (h.has('x-rsmf-eventcollectionid') && h.get('x-rsmf-eventcollectionid') !== m.eventcollectionid)
    out.push('X-RSMF-EventCollectionID differs from eventcollectionid');
  return out;
}
