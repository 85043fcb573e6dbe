import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsBlobStore } from '../../src/blobs/index.ts';
import type { BlobStore } from '../../src/blobs/types.ts';
import { createDocumentReader } from '../../src/search/documents.ts';
import { contentFormatOf, extractContentText, formatOf, type ExtractOptions } from '../../src/search/extract.ts';
import { zipProblem } from '../../src/search/zip-guard.ts';
import { docxWith, pdfWith } from './document-fixtures.ts';

const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('docx and PDF text extraction', () => {
  let root: string;
  let blobs: BlobStore;
  const documents = createDocumentReader();
  let debug: { obj: Record<string, unknown>; msg?: string }[];
  const log = { debug: (obj: object, msg?: string) => void debug.push({ obj: obj as Record<string, unknown>, msg }) };

  async function extract(
    name: string,
    bytes: Buffer,
    options: Partial<ExtractOptions> = {},
    mime: string | null = null,
  ) {
    const w = await blobs.writer();
    await w.write(bytes);
    const { sha256, size } = await w.commit();
    debug = [];
    return extractContentText(
      blobs,
      { sha256, size, name, mime_type: mime, kind: 'file' },
      { log, documents, ...options },
    );
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'custody-extract-docs-'));
    blobs = createFsBlobStore({ root });
  });
  afterAll(async () => {
    await documents.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('recognises docx and PDF by media type or extension, and keeps them out of the text extractors', () => {
    expect(contentFormatOf({ kind: 'file', name: 'report', mime_type: DOCX_MIME })).toBe('docx');
    expect(contentFormatOf({ kind: 'file', name: 'Report.DOCX', mime_type: 'application/octet-stream' })).toBe('docx');
    expect(contentFormatOf({ kind: 'file', name: 'scan', mime_type: 'application/pdf' })).toBe('pdf');
    expect(contentFormatOf({ kind: 'file', name: 'scan.pdf', mime_type: null })).toBe('pdf');
    expect(contentFormatOf({ kind: 'file', name: 'photo.jpg', mime_type: 'image/jpeg' })).toBeNull();
    expect(formatOf({ kind: 'file', name: 'scan.pdf', mime_type: 'application/pdf' })).toBeNull();
    expect(formatOf({ kind: 'file', name: 'x.docx', mime_type: DOCX_MIME })).toBeNull();
  });

  it('reads the paragraphs of a docx, deflated or stored', async () => {
    const paragraphs = [
      'Quarterly forecast for the Lisbon office',
      'Contains the phrase "amber falcon protocol" & more',
    ];
    for (const compression of ['DEFLATE', 'STORE'] as const) {
      const text = await extract('plan.docx', await docxWith(paragraphs, compression));
      expect(text).toContain('Quarterly forecast for the Lisbon office');
      expect(text).toContain('"amber falcon protocol" & more');
    }
    expect(await extract('no-extension', await docxWith(['typed by media type']), {}, DOCX_MIME)).toContain(
      'typed by media type',
    );
  });

  it('reads the text of every page of a PDF, escaped characters included', async () => {
    const pdf = pdfWith([['Invoice 7731 (final)', 'Payable to Northwind'], ['Second page: cobalt heron']]);
    const text = await extract('invoice.pdf', pdf);
    expect(text).toContain('Invoice 7731 (final)');
    expect(text).toContain('Payable to Northwind');
    expect(text).toContain('Second page: cobalt heron');
    expect(debug).toEqual([]);
  });

  it('gives null and a debug line, never an error, for a corrupt docx or PDF', async () => {
    const docx = await docxWith(['never read']);
    const pdf = pdfWith([['never read']]);
    const cases: [string, Buffer][] = [
      ['random.docx', Buffer.from('PK\u0003\u0004 not really a zip archive')],
      ['cut.docx', docx.subarray(0, docx.length - 40)],
      ['plain.pdf', Buffer.from('alpha beta gamma delta')],
      ['header-only.pdf', Buffer.from('%PDF-1.7\n%%EOF\n')],
      ['scrambled.pdf', Buffer.from(pdf.toString('latin1').replace(/obj/g, 'jbo'), 'latin1')],
    ];
    for (const [name, bytes] of cases) {
      await expect(extract(name, bytes)).resolves.toBeNull();
      expect(
        debug.map((d) => d.msg),
        name,
      ).toEqual(['document text not extracted']);
      expect(typeof debug[0].obj.err, name).toBe('string');
    }
  });

  it('refuses a docx that would inflate past the limit, without handing it to the parser', async () => {
    const big = await docxWith([`budget ${'x'.repeat(200_000)}`]);
    expect(big.length).toBeLessThan(10_000);
    expect(await extract('big.docx', big, { maxInflatedBytes: 100_000 })).toBeNull();
    expect(debug[0].obj.err).toBe('inflates past 100000 bytes');
    expect(await extract('big.docx', big)).toContain('budget');
  });

  it('catches a zip entry that understates its inflated size', async () => {
    const zip = await docxWith([`y${'z'.repeat(100_000)}`]);
    expect(zipProblem(zip, { maxEntries: 10, maxInflatedBytes: 1_000_000 })).toBeNull();
    // Rewrite the central directory's uncompressed size of word/document.xml to 1 KiB.
    const central = zip.lastIndexOf('word/document.xml') - 46;
    expect(zip.readUInt32LE(central)).toBe(0x02014b50);
    const lying = Buffer.from(zip);
    lying.writeUInt32LE(1024, central + 24);
    expect(zipProblem(lying, { maxEntries: 10, maxInflatedBytes: 1_000_000 })).toBe(
      'an entry inflates past its declared size',
    );
    expect(await extract('lying.docx', lying)).toBeNull();
    // Three files, and the two folders JSZip adds.
    expect(zipProblem(zip, { maxEntries: 2, maxInflatedBytes: 1_000_000 })).toBe('5 entries');
  });

  it('skips a docx larger than the read cap, since a cut zip cannot be opened', async () => {
    const docx = await docxWith(['too large to read']);
    expect(await extract('large.docx', docx, { maxBytes: docx.length - 1 })).toBeNull();
    expect(debug.map((d) => d.msg)).toEqual(['document too large for text extraction']);
  });

  it('reads at most maxPdfPages pages and says where it stopped', async () => {
    const pdf = pdfWith(Array.from({ length: 6 }, (_, i) => [`marker${i + 1} on this page`]));
    const text = await extract('long.pdf', pdf, { maxPdfPages: 4 });
    expect(text).toContain('marker4');
    expect(text).not.toContain('marker5');
    expect(debug).toEqual([
      { obj: expect.objectContaining({ format: 'pdf', cut: 'pages' }), msg: 'document text cut short' },
    ]);
  });

  it('still reads a PDF cut at the read cap when the objects it needs were read', async () => {
    const pdf = pdfWith([['opening page'], ['middle page'], ['closing page']]);
    // The cut loses the cross-reference table and the trailer: pdf.js rebuilds them from the objects.
    const text = await extract('cut.pdf', pdf, { maxBytes: pdf.lastIndexOf('xref') });
    expect(text).toBe('opening page\nmiddle page\nclosing page');
  });

  it('stops at the time limit with the pages read so far, or null', async () => {
    // 40 lines fit on a page: pdf.js leaves out text set below the bottom edge.
    const pages = Array.from({ length: 150 }, (_, p) =>
      Array.from({ length: 40 }, (_, l) => `page${p + 1} line ${l} words words words`),
    );
    const pdf = pdfWith(pages);
    const full = await extract('slow.pdf', pdf);
    expect(full).toContain('page150 line 39');

    const started = Date.now();
    const text = await extract('slow.pdf', pdf, { timeoutMs: 30 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(text ?? '').not.toContain('page150 line 39');
    expect(debug).toHaveLength(1);
    expect(debug[0].obj.cut === 'time' || debug[0].obj.err === 'no text after 30 ms').toBe(true);
  });

  it('bounds the text of a document to maxChars', async () => {
    const pdf = pdfWith(Array.from({ length: 5 }, (_, i) => [`chunk${i} ${'abcdefghij'.repeat(20)}`]));
    const text = await extract('chars.pdf', pdf, { maxChars: 300 });
    expect(text!.length).toBeLessThanOrEqual(300);
    expect(text).toContain('chunk0');
    expect(text).not.toContain('chunk4');
    expect(debug[0].obj.cut).toBe('chars');
  });
});
