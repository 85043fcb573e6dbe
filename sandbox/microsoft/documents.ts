import { crc32 } from 'node:zlib';
import { seededBytes } from './rng.ts';

/**
 * File content a user can search: text, CSV and JSON made of words, and real .docx and .pdf documents with
 * words in them (written here, no runtime dependency), all derived from (seed, label) so a seed always gives the
 * same bytes. Other types (xlsx, pptx, png) stay opaque seeded bytes. `size` is the length of the text generated.
 */
export function documentContent(name: string, seed: number, label: string, size: number): Buffer {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  const words = () => seededWords(seed, label, size);
  switch (ext) {
    case 'txt':
    case 'md':
      return Buffer.from(words(), 'utf8');
    case 'csv':
      return Buffer.from(csvOf(words().toLowerCase().split(/[ .]+/).filter(Boolean)), 'utf8');
    case 'json':
      return Buffer.from(JSON.stringify({ title: name, body: words() }), 'utf8');
    case 'docx':
      return docx(words());
    case 'pdf':
      return pdf(words());
    default:
      return seededBytes(seed, label, size);
  }
}

const WORDS = (
  'budget forecast quarterly review contract signed invoice payment vendor settlement litigation hold custodian ' +
  'meeting minutes agenda approval revenue expense audit compliance policy retention privileged counsel draft ' +
  'final report proposal merger acquisition board strategy roadmap deadline shipment warehouse pricing discount ' +
  'renewal termination confidential memo summary project milestone launch customer escalation incident'
).split(' ');

/** Words picked by the seeded stream, joined with spaces and a full stop every dozen words, `length` characters long. */
export function seededWords(seed: number, label: string, length: number): string {
  const picks = seededBytes(seed, `words/${label}`, Math.max(8, Math.ceil(length / 3)));
  let out = '';
  for (let i = 0; out.length < length; i++) {
    const word = WORDS[picks[i % picks.length] % WORDS.length];
    out += i % 12 === 0 ? (i ? '. ' : '') + word[0].toUpperCase() + word.slice(1) : ` ${word}`;
  }
  return out.slice(0, Math.max(1, length));
}

function csvOf(words: string[]): string {
  const rows = ['id,item,owner,amount'];
  for (let i = 0; i + 1 < words.length; i += 2)
    rows.push(`${i / 2 + 1},${words[i]},${words[i + 1]},${(i * 37) % 1000}.00`);
  return `${rows.join('\r\n')}\r\n`;
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A minimal WordprocessingML package: one paragraph per sentence. */
function docx(text: string): Buffer {
  const paragraphs = text
    .split('. ')
    .map((p) => `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(p)}</w:t></w:r></w:p>`)
    .join('');
  return zip([
    [
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ],
    [
      '_rels/.rels',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ],
    [
      'word/document.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs}</w:body></w:document>`,
    ],
  ]);
}

/** A stored (uncompressed) ZIP archive with a fixed timestamp, so the same files give the same bytes. */
function zip(files: Array<[string, string]>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of files) {
    const data = Buffer.from(text, 'utf8');
    const fileName = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    local.writeUInt16LE(0, 28);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(0, 10);
    header.writeUInt16LE(0, 12);
    header.writeUInt16LE(0x21, 14);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(data.length, 20);
    header.writeUInt32LE(data.length, 24);
    header.writeUInt16LE(fileName.length, 28);
    header.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    central.push(header, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** A one-page-per-40-lines PDF 1.4 in Helvetica, with a correct cross-reference table. */
function pdf(text: string): Buffer {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if ((line + word).length > 80) {
      lines.push(line.trimEnd());
      line = '';
    }
    line += `${word} `;
  }
  if (line.trim()) lines.push(line.trimEnd());
  const pages: string[][] = [];
  for (let i = 0; i < lines.length; i += 40) pages.push(lines.slice(i, i + 40));
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, '?');
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 4 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pages.forEach((page, i) => {
    const stream = `BT /F1 11 Tf 14 TL 56 780 Td ${page.map((l) => `(${esc(l)}) Tj T*`).join(' ')} ET`;
    objects[pageIds[i]] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageIds[i] + 1} 0 R >>`;
    objects[pageIds[i] + 1] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
