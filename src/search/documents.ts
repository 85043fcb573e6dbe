import { ExtractorThread } from './extractor-thread.ts';
import { zipProblem } from './zip-guard.ts';

/** Formats whose text needs a parsing library; the libraries load in a worker thread on first use. */
export type DocumentFormat = 'docx' | 'pdf';

export interface DocumentLimits {
  maxChars: number;
  /** A PDF's pages past this one are not read. */
  maxPdfPages: number;
  /** For one document, from when its parsing starts. */
  timeoutMs: number;
  maxZipEntries: number;
  /** What a docx's entries together may inflate to. */
  maxInflatedBytes: number;
}

export interface DebugLog {
  debug(obj: object, msg?: string): void;
}

/** Parses docx and PDF in one worker thread, started on first use; one per process, built where it is composed. */
export interface DocumentReader {
  /**
   * The text of a docx or PDF, or null when there is none or the file cannot be read (corrupt, encrypted, over a
   * limit). Never rejects: a file that fails is still stored, and searchable by name, path and metadata.
   */
  text(format: DocumentFormat, bytes: Buffer, limits: DocumentLimits, log?: DebugLog): Promise<string | null>;
  /** Ends the extractor thread now rather than when it has been idle for a while. */
  stop(): Promise<void>;
}

export function createDocumentReader(): DocumentReader {
  let thread: ExtractorThread | undefined;
  return {
    async text(format, bytes, limits, log) {
      const started = Date.now();
      try {
        if (format === 'docx') {
          const problem = zipProblem(bytes, {
            maxEntries: limits.maxZipEntries,
            maxInflatedBytes: limits.maxInflatedBytes,
          });
          if (problem) throw new Error(problem);
        }
        thread ??= new ExtractorThread({ timeoutMs: limits.timeoutMs });
        const { text, cut } = await thread.run(
          { format, bytes, maxPages: limits.maxPdfPages, maxChars: limits.maxChars },
          limits.timeoutMs,
        );
        if (cut) log?.debug({ format, cut, ms: Date.now() - started }, 'document text cut short');
        return text.trim() === '' ? null : text.slice(0, limits.maxChars);
      } catch (err) {
        log?.debug(
          { format, err: err instanceof Error ? err.message : String(err), ms: Date.now() - started },
          'document text not extracted',
        );
        return null;
      }
    },
    async stop() {
      const current = thread;
      thread = undefined;
      await current?.stop();
    },
  };
}
