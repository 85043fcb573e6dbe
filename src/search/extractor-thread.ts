import { Worker } from 'node:worker_threads';

export interface ThreadJob {
  format: 'docx' | 'pdf';
  bytes: Uint8Array;
  maxPages: number;
  maxChars: number;
}

/** `cut`: why the text stops before the end of the document, if it does. */
export interface ThreadResult {
  text: string;
  cut: 'pages' | 'chars' | 'time' | null;
}

export interface ThreadOptions {
  /** For one job, from when it starts (after the jobs queued before it). */
  timeoutMs: number;
  /** The thread's V8 heap: a document that needs more ends the thread, not the process. */
  heapMb?: number;
  /** An idle thread ends after this long, giving back the parsers' memory. */
  idleMs?: number;
}

type Reply = { id: number } & ({ text: string } | { done: true; cut: 'pages' | 'chars' | null } | { error: string });

const WORKER_URL = new URL('./document-worker.mjs', import.meta.url);

/**
 * One worker thread that parses documents, one at a time. pdf.js in Node passes its messages as microtasks, so
 * in this thread it would hold the event loop (HTTP, heartbeats) for a whole document and no timer could stop it.
 * In a thread, a job over its time is ended by terminating the thread (the pages read by then keep their text),
 * and the next job starts a new one.
 */
export class ExtractorThread {
  private worker: Worker | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  private nextId = 0;

  constructor(private readonly options: ThreadOptions) {}

  run(job: ThreadJob, timeoutMs = this.options.timeoutMs): Promise<ThreadResult> {
    const result = this.queue.then(() => this.execute(job, timeoutMs));
    this.queue = result.catch(() => undefined);
    return result;
  }

  async stop(): Promise<void> {
    clearTimeout(this.idle);
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb ?? 512 },
      // Plain JavaScript: no loader of the parent's command line (`tsx` as a CLI hands its hooks to every thread,
      // and pdf.js loaded through them cost the thread about 370 MB instead of 55).
      execArgv: [],
      stdout: true,
      stderr: true,
    });
    // Whatever the libraries print would otherwise land in the service's log stream.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.on('error', () => undefined); // reported to the job running, if any
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    worker.unref();
    return worker;
  }

  private execute(job: ThreadJob, timeoutMs: number): Promise<ThreadResult> {
    clearTimeout(this.idle);
    const worker = (this.worker ??= this.start());
    const id = ++this.nextId;
    const pages: string[] = [];
    // A copy, transferred: the caller's buffer may share its memory with other Buffers.
    const bytes = new Uint8Array(job.bytes);
    return new Promise<ThreadResult>((resolve, reject) => {
      const settle = (done: () => void) => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        this.idle = setTimeout(() => void this.stop(), this.options.idleMs ?? 30_000).unref();
        done();
      };
      const timer = setTimeout(() => {
        void this.stop();
        settle(() =>
          pages.length > 0
            ? resolve({ text: pages.join('\n'), cut: 'time' })
            : reject(new Error(`no text after ${timeoutMs} ms`)),
        );
      }, timeoutMs);
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        if ('text' in reply) pages.push(reply.text);
        else if ('error' in reply) settle(() => reject(new Error(reply.error)));
        else settle(() => resolve({ text: pages.join('\n'), cut: reply.cut }));
      };
      const onError = (err: Error) => {
        void this.stop();
        settle(() => reject(err));
      };
      const onExit = (code: number) => settle(() => reject(new Error(`extractor thread exited with code ${code}`)));
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage({ id, format: job.format, bytes, maxPages: job.maxPages, maxChars: job.maxChars }, [
        bytes.buffer,
      ]);
    });
  }
}
