import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtractorThread } from '../../src/search/extractor-thread.ts';
import { docxWith, pdfWith } from './document-fixtures.ts';

const job = (format: 'docx' | 'pdf', bytes: Buffer) => ({ format, bytes, maxPages: 500, maxChars: 10_000_000 });
// 40 lines fit on a page (pdf.js leaves out text set below the bottom edge); parsing this takes a few hundred ms.
const longPdf = () =>
  pdfWith(
    Array.from({ length: 150 }, (_, p) =>
      Array.from({ length: 40 }, (_, l) => `page${p + 1} line ${l} words words words`),
    ),
  );

describe('the extractor thread', () => {
  let thread: ExtractorThread | undefined;
  afterEach(() => thread?.stop());

  it('keeps the event loop free while it parses', async () => {
    thread = new ExtractorThread({ timeoutMs: 20_000 });
    await thread.run(job('pdf', pdfWith([['warm up']])));
    let ticks = 0;
    const interval = setInterval(() => (ticks += 1), 5);
    const started = Date.now();
    const { text } = await thread.run(job('pdf', longPdf()));
    const elapsed = Date.now() - started;
    clearInterval(interval);
    expect(text).toContain('page150 line 39');
    // Parsed on this thread, pdf.js holds the loop for the whole document: one tick at most.
    expect(elapsed).toBeGreaterThan(50);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / 5 / 4));
  });

  it('runs queued jobs one at a time, each getting its own text', async () => {
    thread = new ExtractorThread({ timeoutMs: 20_000 });
    const results = await Promise.all([
      thread.run(job('pdf', pdfWith([['first document']]))),
      thread.run(job('docx', await docxWith(['second document']))),
      thread.run(job('pdf', pdfWith([['third document']]))),
    ]);
    expect(results.map((r) => r.text.trim())).toEqual(['first document', 'second document', 'third document']);
  });

  it('ends a job at its time limit, keeping the pages read, and starts a new thread for the next', async () => {
    thread = new ExtractorThread({ timeoutMs: 20_000 });
    const started = Date.now();
    const late = await thread.run(job('pdf', longPdf()), 40).then(
      (r) => r,
      (err: Error) => err,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    if (late instanceof Error) expect(late.message).toBe('no text after 40 ms');
    else expect(late.cut).toBe('time');
    expect((await thread.run(job('pdf', pdfWith([['after the timeout']])))).text.trim()).toBe('after the timeout');
  });

  it('fails only the job whose document exhausts the thread heap', async () => {
    thread = new ExtractorThread({ timeoutMs: 20_000, heapMb: 32 });
    const heavy = await docxWith(Array.from({ length: 60_000 }, (_, i) => `paragraph ${i} with several words in it`));
    expect((await thread.run(job('docx', await docxWith(['before'])))).text.trim()).toBe('before');
    await expect(thread.run(job('docx', heavy))).rejects.toMatchObject({ code: 'ERR_WORKER_OUT_OF_MEMORY' });
    expect((await thread.run(job('docx', await docxWith(['after'])))).text.trim()).toBe('after');
  });

  it("runs without the loaders of its process's command line", () => {
    // `tsx` as a CLI (the benches, `npx tsx`) hands its hooks to every thread; loaded through them, pdf.js cost the
    // thread about 370 MB instead of 55. Here a loader that fails in any thread but the main one stands for them.
    const dir = mkdtempSync(path.join(tmpdir(), 'extractor-loader-'));
    const loader = path.join(dir, 'main-thread-only.mjs');
    writeFileSync(
      loader,
      "import { isMainThread } from 'node:worker_threads'; if (!isMainThread) throw new Error('loaded in a thread');",
    );
    const url = (file: string) => pathToFileURL(path.resolve(file)).href;
    const script = `
      import { ExtractorThread } from '${url('src/search/extractor-thread.ts')}';
      import { pdfWith } from '${url('test/search/document-fixtures.ts')}';
      const thread = new ExtractorThread({ timeoutMs: 20_000 });
      const job = { format: 'pdf', bytes: pdfWith([['read in a plain thread']]), maxPages: 5, maxChars: 1000 };
      try { console.log(JSON.stringify(await thread.run(job))); } finally { await thread.stop(); }`;
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--import', url(loader), '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout.trim()) as { text: string }).toMatchObject({ text: 'read in a plain thread' });
  });
});
