// The body of the extractor thread (extractor-thread.ts): docx text through mammoth, PDF text through pdf.js.
// Plain JavaScript because worker threads do not inherit tsx's loader, and starting tsx in the thread costs about
// a second. Messages in: { id, format, bytes, maxPages, maxChars }. Out, for that id: { text } per page (one for
// a docx), then { done: true, cut } or { error }.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';

// pdf.js reads its character maps (needed for CJK text) and standard font data from its own package directory.
const pdfjsRoot = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const PDFJS_DATA = {
  cMapUrl: join(pdfjsRoot, 'cmaps') + '/',
  cMapPacked: true,
  standardFontDataUrl: join(pdfjsRoot, 'standard_fonts') + '/',
};

async function docxText(job, send) {
  const { default: mammoth } = await import('mammoth');
  // Raw text reads no images, and mammoth opens linked external files only when told to (externalFileAccess).
  const { value } = await mammoth.extractRawText({
    buffer: Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength),
  });
  send({ text: value });
  return null;
}

async function pdfText(job, send) {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = pdfjs.getDocument({
    data: job.bytes,
    ...PDFJS_DATA,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    stopAtErrors: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    const doc = await task.promise;
    let chars = 0;
    for (let n = 1; n <= Math.min(doc.numPages, job.maxPages); n++) {
      if (chars >= job.maxChars) return 'chars';
      let text;
      try {
        const page = await doc.getPage(n);
        const content = await page.getTextContent();
        text = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
        page.cleanup();
      } catch {
        continue; // a broken page: the others may still read
      }
      chars += text.length;
      send({ text });
    }
    return doc.numPages > job.maxPages ? 'pages' : null;
  } finally {
    await task.destroy();
  }
}

parentPort.on('message', async (job) => {
  const send = (message) => parentPort.postMessage({ id: job.id, ...message });
  try {
    const cut = job.format === 'docx' ? await docxText(job, send) : await pdfText(job, send);
    send({ done: true, cut });
  } catch (err) {
    send({ error: err instanceof Error ? err.message : String(err) });
  }
});
