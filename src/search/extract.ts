import type { BlobStore } from '../blobs/types.ts';
import type { DebugLog, DocumentReader, DocumentFormat, DocumentLimits } from './documents.ts';

/**
 * Searchable text from stored content: WebVTT transcripts, chat files, txt, md, csv/tsv, json, html/xml, and the
 * text of docx (mammoth) and PDF (pdf.js) files. At most `maxBytes` of a blob are read.
 */
export type TextFormat = 'vtt' | 'text' | 'json' | 'html';
export type ContentFormat = TextFormat | DocumentFormat;

export const EXTRACT_LIMITS: DocumentLimits & { maxBytes: number } = {
  maxBytes: 4 * 1024 * 1024,
  maxChars: 2_000_000,
  maxPdfPages: 200,
  timeoutMs: 15_000,
  maxZipEntries: 2_000,
  maxInflatedBytes: 32 * 1024 * 1024,
};

export type ExtractOptions = Partial<typeof EXTRACT_LIMITS> & { log?: DebugLog; documents: DocumentReader };

const BY_EXTENSION: Record<string, ContentFormat> = {
  vtt: 'vtt',
  txt: 'text',
  text: 'text',
  log: 'text',
  md: 'text',
  markdown: 'text',
  csv: 'text',
  tsv: 'text',
  json: 'json',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  xml: 'html',
  docx: 'docx',
  pdf: 'pdf',
};

const BY_MIME: Record<string, ContentFormat> = {
  'text/vtt': 'vtt',
  'application/json': 'json',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/xml': 'html',
  'text/xml': 'html',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/pdf': 'pdf',
};

export interface ContentDescriptor {
  name: string;
  mime_type: string | null;
  kind: string;
  /** metadata.file_type of a Zoom recording file (TRANSCRIPT, CC, TIMELINE), when known */
  file_type?: string | null;
}

/** Zoom files of kind `transcript` that are JSON, not WebVTT. */
const JSON_TRANSCRIPTS = new Set(['TIMELINE', 'TB']);

/** Which extractor applies, or null for content that has no text we read (recordings, images…). */
export function contentFormatOf(item: ContentDescriptor): ContentFormat | null {
  if (
    item.kind === 'recording_video' ||
    item.kind === 'recording_audio' ||
    item.kind === 'participant_audio' ||
    item.kind === 'folder'
  )
    return null;
  const mime = (item.mime_type ?? '').split(';')[0].trim().toLowerCase();
  const ext = /\.([A-Za-z0-9]+)$/.exec(item.name)?.[1]?.toLowerCase();
  if (item.kind === 'transcript') {
    // Transcripts and closed captions are WebVTT; the timeline, which shares the kind, is JSON.
    const json =
      JSON_TRANSCRIPTS.has((item.file_type ?? '').toUpperCase()) || mime === 'application/json' || ext === 'json';
    return json ? 'json' : 'vtt';
  }
  if (BY_MIME[mime]) return BY_MIME[mime];
  if (ext && BY_EXTENSION[ext]) return BY_EXTENSION[ext];
  if (mime.startsWith('text/') || item.kind === 'meeting_chat') return 'text';
  return null;
}

const isDocument = (format: ContentFormat): format is DocumentFormat => format === 'docx' || format === 'pdf';

/** The text extractor that applies; null also for docx and PDF, which extractContentText reads through a library. */
export function formatOf(item: ContentDescriptor): TextFormat | null {
  const format = contentFormatOf(item);
  return format && !isDocument(format) ? format : null;
}

function decode(bytes: Buffer): string | null {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe)
    return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff)
    return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  // A NUL in the first KiB means binary content with a misleading name or type.
  if (bytes.subarray(0, 1024).includes(0)) return null;
  return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
    }
    return ENTITIES[e.toLowerCase()] ?? whole;
  });
}

export function htmlToText(html: string): string {
  const stripped = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ');
  return decodeEntities(stripped)
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n');
}

/** Cue text only: no header, timings, cue ids, NOTE/STYLE blocks; `<v Alice>` keeps the speaker's name. */
export function vttToText(vtt: string): string {
  const blocks = vtt.replace(/\r\n?/g, '\n').split(/\n{2,}/);
  const out: string[] = [];
  for (const block of blocks) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    const timing = lines.findIndex((l) => l.includes('-->'));
    if (timing < 0) continue; // header, NOTE, STYLE, REGION
    for (const line of lines.slice(timing + 1)) {
      out.push(decodeEntities(line.replace(/<v(?:\.[^\s>]*)?\s+([^>]*)>/g, '$1: ').replace(/<[^>]*>/g, '')).trim());
    }
  }
  return out.join('\n');
}

function jsonToText(raw: string): string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw; // truncated or not JSON after all: the words are still there
  }
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 64) return;
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
    else if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
    else if (v && typeof v === 'object') Object.values(v).forEach((x) => walk(x, depth + 1));
  };
  walk(value, 0);
  return out.join('\n');
}

/** Text of already-read bytes in a known format. */
export function textOf(format: TextFormat, bytes: Buffer): string | null {
  const raw = decode(bytes);
  if (raw === null) return null;
  const text =
    format === 'vtt' ? vttToText(raw) : format === 'html' ? htmlToText(raw) : format === 'json' ? jsonToText(raw) : raw;
  return text.slice(0, EXTRACT_LIMITS.maxChars);
}

async function readHead(blobs: BlobStore, sha256: string, maxBytes: number): Promise<Buffer> {
  const stream = await blobs.read(sha256, { start: 0, end: maxBytes - 1 });
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    n += (chunk as Buffer).length;
    if (n >= maxBytes) break;
  }
  stream.destroy();
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

/**
 * The searchable text of an item's stored content, or null when it has none we can read. Call it after the blob
 * is committed and before the item's transaction (it reads the blob store, which a transaction should not wait on).
 * A docx or PDF that cannot be parsed gives null (and a debug line on `log`), never an error.
 */
export async function extractContentText(
  blobs: BlobStore,
  item: ContentDescriptor & { sha256: string | null; size?: number | null },
  options: ExtractOptions,
): Promise<string | null> {
  if (!item.sha256 || item.size === 0) return null;
  const format = contentFormatOf(item);
  if (!format) return null;
  const { log, documents, ...overrides } = options;
  const limits = { ...EXTRACT_LIMITS, ...overrides };
  if (!isDocument(format)) return textOf(format, await readHead(blobs, item.sha256, limits.maxBytes));
  // A zip's directory is at its end, so a docx cut at maxBytes cannot be opened. A cut PDF is still tried:
  // pdf.js rebuilds a lost cross-reference table from the objects it finds, when the catalog and pages are there.
  if (format === 'docx' && item.size != null && item.size > limits.maxBytes) {
    log?.debug({ format, size: item.size }, 'document too large for text extraction');
    return null;
  }
  return documents.text(format, await readHead(blobs, item.sha256, limits.maxBytes), limits, log);
}
