import type { Readable } from 'node:stream';
import type { BlobWriter } from './types.ts';

/**
 * Streams `source` into `writer`, awaiting each write before pulling the next chunk, so memory stays at the
 * source's high-water mark whatever the size. On a source failure the writer is left open: the caller can
 * reopen the source with a Range from `writer.bytesWritten` and call this again. Returns the bytes written
 * by this call.
 */
export async function pipeToWriter(
  source: Readable | AsyncIterable<Uint8Array | string>,
  writer: BlobWriter,
  signal?: AbortSignal,
): Promise<number> {
  if (signal?.aborted) throw signal.reason;
  const destroyable = 'destroy' in source && typeof source.destroy === 'function' ? source : undefined;
  const onAbort = () => destroyable?.destroy(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  let written = 0;
  try {
    for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
      if (signal?.aborted) throw signal.reason;
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      await writer.write(bytes);
      written += bytes.length;
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw signal.reason;
  return written;
}
