// An item's content on its way in: downloaded into the blob store (its reference noted so the orphan sweep leaves
// it alone), and its text for the search index: from the bytes still in memory for small content, read back from
// the store otherwise. The item writer (item-writer.ts) writes the item afterwards.
import type { BlobStore } from '../../blobs/types.ts';
import type { ContentSource, ItemInput, Logger } from '../../connectors/types.ts';
import { ContentGoneError } from '../../domain/run-failures.ts';
import { extractContentText, type DocumentReader } from '../../search/index.ts';
import { formatOf, textOf } from '../../search/extract.ts';
import type { BlobRefRepo } from '../../store/blob-refs.ts';
import type { StoredContent } from './apply.ts';
import { fetchContent } from './content.ts';

export type Downloaded =
  /** `bytes`: the whole content when it is small (content.ts KEPT_CONTENT_BYTES), for its search text. */
  /** `noted`: false when the note of its reference waits for the page's sync (CommittedBlob.held). */
  | { ok: true; content: StoredContent; transferred: number; bytes?: Buffer; noted: boolean }
  | { ok: false; reason: string }
  /** Deleted at the source between its listing and its download. */
  | 'gone';

export interface DownloadIo {
  blobs: BlobStore;
  refs: BlobRefRepo;
  signal: AbortSignal;
  onProgress?: () => void;
  now: () => string;
  /** Told of the bytes received (resumed and repeated downloads included). */
  transferred(bytes: number): void;
  /** A problem to keep in the run's errors (the piece may still be stored). */
  recordError(reason: string): void;
  /** Group commit (fresh-blobs.ts): the blob is not synced here; the writer syncs the page's blobs at once. */
  deferSync?: boolean;
}

export async function downloadContent(io: DownloadIo, content: ContentSource): Promise<Downloaded> {
  try {
    const fetched = await fetchContent(io.blobs, content, {
      signal: io.signal,
      onProgress: io.onProgress,
      deferSync: io.deferSync,
    });
    // Until the item is written, only this note tells the orphan sweep that a live run owns the blob. Content the
    // store holds in memory until the page's sync is noted then, with the page's other notes (fresh-blobs.ts).
    const noted = fetched.blob.held !== true;
    if (noted) await io.refs.noteCommitted(fetched.blob.sha256, fetched.blob.size, io.now());
    io.transferred(fetched.transferred);
    for (const blob of fetched.rejected) {
      if (blob.sha256 !== fetched.blob.sha256) await io.refs.discard(blob.sha256, blob.size, io.blobs, io.now());
    }
    if (fetched.problem) io.recordError(`content hash not verified after a second download: ${fetched.problem}`);
    const { sha256, md5, size } = fetched.blob;
    return {
      ok: true,
      content: { sha256, md5, size, providerHash: fetched.providerHash, verified: fetched.verified },
      transferred: fetched.transferred,
      bytes: fetched.bytes,
      noted,
    };
  } catch (err) {
    if (io.signal.aborted) throw err;
    if (isGone(err)) return 'gone';
    const reason = `content download failed: ${(err as Error).message ?? String(err)}`;
    io.recordError(reason);
    return { ok: false, reason };
  }
}

function isGone(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof ContentGoneError) return true;
  return false;
}

/**
 * The text of stored content for the search index, before the item's transaction (which should not wait on it);
 * null when it cannot be read. Plain-text formats are decoded from `bytes` when the whole content is in memory;
 * everything else (docx, PDF, larger content) is read back from the blob store.
 */
export function searchTextOf(
  deps: { blobs: BlobStore; log: Logger; documents: DocumentReader },
  input: ItemInput,
  blob: StoredContent,
  bytes?: Buffer,
): Promise<string | null> {
  const fileType = typeof input.metadata?.file_type === 'string' ? input.metadata.file_type : null;
  const descriptor = {
    name: input.name,
    mime_type: input.mimeType ?? null,
    kind: input.kind,
    file_type: fileType,
    sha256: blob.sha256,
    size: blob.size,
  };
  const failed = (err: unknown) => {
    deps.log.warn({ err: (err as Error).message, source_id: input.sourceId }, 'content text extraction failed');
    return null;
  };
  const format = bytes && blob.size > 0 ? formatOf(descriptor) : null;
  if (format) {
    try {
      return Promise.resolve(textOf(format, bytes!));
    } catch (err) {
      return Promise.resolve(failed(err));
    }
  }
  return extractContentText(deps.blobs, descriptor, { log: deps.log, documents: deps.documents }).catch(failed);
}
