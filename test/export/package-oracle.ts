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

/** RSMF (Relativity "RSMF file specification"): RFC 5322 headers, X-RSMF-Version, exactly one base64 rsmf.zip. */
export async function readRsmf(bytes: Buffer): Promise<{ headers: Map<string, string>; manifest: any }> {
  const text = bytes.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) throw new Error('no header/body separator');
  const headers = new Map<string, string>();
  for (const line of text.slice(0, split).split('\r\n')) {
    const i = line.indexOf(':');
    headers.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
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
  return { headers, manifest: JSON.parse(manifest.toString('utf8')) };
}

/** RSMF 2.0 manifest structure: required ids and references between participants, conversations and events. */
export function rsmfProblems(m: any): string[] {
  const out: string[] = [];
  if (m.version !== '2.0.0') out.push(`version ${m.version}`);
  const people = new Set<string>((m.participants ?? []).map((p: any) => p.id));
  for (const p of m.participants ?? []) if (typeof p.id !== 'string' || !p.id) out.push('participant without id');
  const convs = new Set<string>((m.conversations ?? []).map((c: any) => c.id));
  for (const c of m.conversations ?? []) {
    if (typeof c.id !== 'string' || !c.id) out.push('conversation without id');
    for (const p of c.participants ?? []) if (!people.has(p)) out.push(`conversation participant ${p} unknown`);
  }
  for (const e of m.events ?? []) {
    if (typeof e.id !== 'string' || !e.id) out.push('event without id');
    if (e.type !== 'message') out.push(`event type ${e.type}`);
    if (!people.has(e.participant)) out.push(`event participant ${e.participant} unknown`);
    if (!convs.has(e.conversation)) out.push(`event conversation ${e.conversation} unknown`);
  }
  return out;
}
