// A download leaves garbage that V8 is slow to collect. Each socket read gets a fresh buffer (64 KiB) that is dead
// once a writer has copied it, and V8 starts a collection for such off-heap memory only past about 64 MB of it. Left
// alone, a 1 GiB download carries 40-70 MB of dead chunks at any time, and the allocator keeps those pages. A
// young-generation collection every few MiB frees the chunks while they are still young (bench/bigfile.ts: +75 MB
// RSS became +22 MB, and the sync got faster: the full collections that external memory forced no longer come).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export type Collect = (options: { type: 'minor' | 'major' }) => void;

/** Node flags of this process: its command line and NODE_OPTIONS (a runtime fact, not the service's configuration). */
const nodeFlags = () => [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];

/** V8's collector, or undefined where it cannot be had (the sweep is then skipped). */
export function v8Collector(): Collect | undefined {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as Collect; // started with --expose-gc: nothing to change
  // With frozen flags, setting one aborts the process (a V8 check, not an exception).
  if (nodeFlags().includes('--freeze-flags-after-init')) return undefined;
  try {
    // `gc` exists only in contexts made while the flag is set: the process's own global never gets it, and the flag
    // is off again for any context or worker made later.
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

/**
 * Counts bytes written by every writer and runs a young-generation collection each `everyBytes`: about 1 ms each
 * (15 ms at most in a 1 GiB sync); when V8's background marking is about to finish, the request becomes that full
 * collection instead (once or so per GiB).
 */
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
