import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsBlobStore } from '../../src/blobs/index.ts';
import type { BlobStore } from '../../src/blobs/types.ts';
import { buildDocument, metadataText } from '../../src/search/document.ts';
import { createDocumentReader } from '../../src/search/documents.ts';
import { extractContentText, formatOf, htmlToText, textOf, vttToText } from '../../src/search/extract.ts';
import { highlights } from '../../src/search/highlight.ts';

describe('content text extraction', () => {
  let root: string;
  let blobs: BlobStore;
  const put = async (data: string | Buffer) => {
    const w = await blobs.writer();
    await w.write(typeof data === 'string' ? Buffer.from(data) : data);
    return (await w.commit()).sha256;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'custody-extract-'));
    blobs = createFsBlobStore({ root });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('keeps only the cue text of a WebVTT transcript, with speaker names', () => {
    const vtt =
      'WEBVTT\nKind: captions\n\nNOTE a comment\n\n1\n00:00:01.000 --> 00:00:02.000 align:start\n<v Alice Chen>Hello &amp; <b>welcome</b>\n\n2\r\n00:00:03.000 --> 00:00:04.000\r\nBob: second line\r\n';
    expect(vttToText(vtt)).toBe('Alice Chen: Hello & welcome\nBob: second line');
  });

  it('strips html tags, scripts, styles and comments, and decodes entities', () => {
    const text = htmlToText(
      '<html><head><style>p{}</style><script>var secret=1</script></head><body><!-- hidden --><p>Caf&eacute; &lt;3 &#x41;&#66;</p></body></html>',
    );
    expect(text).not.toMatch(/secret|hidden|<[a-z/!]|p\{\}/);
    expect(text).toContain('&eacute; <3 AB');
  });

  it('reads the string values of json, or the raw text when it does not parse', () => {
    expect(textOf('json', Buffer.from('{"title":"Budget","rows":[{"n":3,"who":"Ann"}]}'))).toBe('Budget\n3\nAnn');
    expect(textOf('json', Buffer.from('{"title":"trunc'))).toBe('{"title":"trunc');
  });

  it('decodes UTF-16 with a BOM and refuses binary content', () => {
    expect(textOf('text', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo', 'utf16le')]))).toBe('héllo');
    expect(textOf('text', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00]))).toBeNull();
  });

  it('picks the text extractor from kind, media type and extension; recordings, docx and pdf have none', () => {
    expect(formatOf({ kind: 'transcript', name: 'x', mime_type: null })).toBe('vtt');
    expect(formatOf({ kind: 'meeting_chat', name: 'chat', mime_type: null })).toBe('text');
    expect(formatOf({ kind: 'file', name: 'a.CSV', mime_type: 'application/octet-stream' })).toBe('text');
    expect(formatOf({ kind: 'file', name: 'page', mime_type: 'text/html; charset=utf-8' })).toBe('html');
    expect(formatOf({ kind: 'file', name: 'notes.md', mime_type: null })).toBe('text');
    expect(
      formatOf({
        kind: 'file',
        name: 'x.docx',
        mime_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      }),
    ).toBeNull();
    expect(formatOf({ kind: 'file', name: 'x.pdf', mime_type: 'application/pdf' })).toBeNull();
    expect(formatOf({ kind: 'recording_video', name: 'x.mp4', mime_type: 'video/mp4' })).toBeNull();
  });

  it('reads stored content from the blob store, at most maxBytes of it', async () => {
    const documents = createDocumentReader();
    const sha256 = await put('alpha beta gamma delta');
    expect(
      await extractContentText(blobs, { sha256, name: 'n.txt', mime_type: null, kind: 'file' }, { documents }),
    ).toBe('alpha beta gamma delta');
    expect(
      await extractContentText(
        blobs,
        { sha256, name: 'n.txt', mime_type: null, kind: 'file' },
        { maxBytes: 10, documents },
      ),
    ).toBe('alpha beta');
    expect(
      await extractContentText(blobs, { sha256, name: 'n.pdf', mime_type: null, kind: 'file' }, { documents }),
    ).toBeNull();
    expect(
      await extractContentText(blobs, { sha256: null, name: 'n.txt', mime_type: null, kind: 'file' }, { documents }),
    ).toBeNull();
    await documents.stop();
  });
});

describe('indexed documents', () => {
  it('take every metadata string except secrets and URLs', () => {
    const text = metadataText(
      JSON.stringify({
        topic: 'Q3 plan',
        participants: [{ name: 'Ann', email: 'ann@x.io' }],
        password: 'p4ss',
        h323_password: '1',
        join_url: 'https://z/j/1?pwd=s',
        encrypted_passcode: 'e',
      }),
    );
    expect(text.split('\n')).toEqual(['Q3 plan', 'Ann', 'ann@x.io']);
  });

  it('bound the words they index', () => {
    const many = Array.from({ length: 120_000 }, (_, i) => `w${i % 50_000}`).join(' ');
    const doc = buildDocument(
      {
        id: 'itm_1',
        collection_id: 'col_1',
        kind: 'file',
        name: 'n',
        path: '/n',
        custodian: null,
        metadata: null,
        text: null,
      },
      many,
    );
    expect(new Set(doc.words.body).size).toBeLessThanOrEqual(40_000);
    expect(doc.words.body.length).toBeLessThanOrEqual(100_000);
  });
});

describe('highlights', () => {
  it('mark phrases whole, prefixes, and escape everything else', () => {
    const out = highlights(
      ['<b>Quarterly</b> budget review & budgeting notes'],
      [
        { words: ['budget', 'review'], prefix: false },
        { words: ['budg'], prefix: true },
      ],
    );
    expect(out).toEqual([
      '&#60;b&#62;Quarterly&#60;/b&#62; <mark>budget review</mark> &#38; <mark>budgeting</mark> notes',
    ]);
  });

  it('match accents and case like the index does, and give at most three snippets', () => {
    expect(highlights(['Le CAFÉ est fermé'], [{ words: ['cafe'], prefix: false }])).toEqual([
      'Le <mark>CAFÉ</mark> est fermé',
    ]);
    const long = Array.from({ length: 20 }, (_, i) => `${'filler '.repeat(40)}needle${i}`).join(' ');
    const out = highlights([long], [{ words: ['needle'], prefix: true }]);
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/^….*<mark>needle0<\/mark>/);
  });
});
