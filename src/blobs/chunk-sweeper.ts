// A download leaves garbage that V8 is slow to collect. Each socket read gets a fresh buffer (64 KiB) that is dead
// once a writer has copied it, and V8 starts a collection for such off-heap memory only past about 64 MB of it. Left
// alone, a 1 GiB download carries 40-70 MB of dead chunks at any time, and the allocator keeps those pages. A
// young-generation collection every few MiB frees the chunks while they are still young (bench/bigfile.ts: +75 MB
// RSS became +22 MB, and the sync did not get slower).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export type Collect = (options: { type: 'minor' }) => void;

/** V8's collector, or undefined where it cannot be had (the sweep is then skipped). */
export function v8Collector(): Collect | undefined {
  try {
    // `gc` exists only in contexts made while the flag is set: the process's own global never gets it.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as unknown;
    return typeof collect === 'function' ? (collect as Collect) : undefined;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** 4 MiB: +22 MB for a 1 GiB file; 8 MiB gave +31 MB and 16 MiB +44 MB (bench/bigfile.ts, local store). */
export const SWEEP_EVERY_BYTES = 4 * 1024 * 1024;

/** Counts bytes written by every writer and runs a young-generation collection each `everyBytes`. */
export function createChunkSweeper(collect: Collect | undefined, everyBytes = SWEEP_EVERY_BYTES) {
  let since = 0;
  return (bytes: number): void => {
    since += bytes;
    if (since < everyBytes || !collect) return;
    since = 0;
    collect({ type: 'minor' });
  };
}

let processSweeper: ((bytes: number) => void) | undefined;

/** The process's sweeper (V8's heap is the process's): PipelineWriter reports each chunk it wrote to it. */
export function sweepWrittenChunks(bytes: number): void {
  processSweeper ??= createChunkSweeper(v8Collector());
  processSweeper(bytes);
}
