import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createChunkSweeper, v8Collector } from '../../src/blobs/chunk-sweeper.ts';
import { createFsBlobStore } from '../../src/blobs/fs.ts';

const MiB = 1024 * 1024;

/** Off-heap bytes of ArrayBuffers alive or not yet collected. */
const arrayBufferBytes = () => process.memoryUsage().arrayBuffers;

/** Allocates `count` buffers of 1 MiB that nothing keeps, as a download's socket reads do. */
function deadChunks(count: number): number {
  let sum = 0;
  for (let i = 0; i < count; i++) sum += new Uint8Array(new ArrayBuffer(MiB)).fill(1)[i];
  return sum;
}

describe('the chunk sweeper', () => {
  it('runs one young-generation collection per interval of written bytes, whatever the chunk sizes', () => {
    const calls: unknown[] = [];
    const sweep = createChunkSweeper((o) => calls.push(o), 4 * MiB);
    for (let i = 0; i < 63; i++) sweep(64 * 1024); // 3.94 MiB
    expect(calls).toEqual([]);
    sweep(64 * 1024);
    expect(calls).toEqual([{ type: 'minor' }]);
    sweep(10 * MiB); // one large chunk counts once, and the count starts again
    sweep(3 * MiB);
    expect(calls).toHaveLength(2);
    sweep(MiB);
    expect(calls).toHaveLength(3);
  });

  it('without a collector it does nothing', () => {
    expect(() => createChunkSweeper(undefined, 1)(10)).not.toThrow();
  });

  it('frees dead download chunks with V8 collector, and adds no gc to the process global', async () => {
    const had = 'gc' in globalThis;
    const collect = v8Collector();
    expect(typeof collect).toBe('function');
    expect('gc' in globalThis).toBe(had);
    const sweep = createChunkSweeper(collect, MiB);
    const before = arrayBufferBytes();
    expect(deadChunks(48)).toBe(48);
    expect(arrayBufferBytes() - before).toBeGreaterThanOrEqual(40 * MiB);
    sweep(MiB);
    // the collection frees them (the array buffers' sweep may finish a moment after it)
    const end = Date.now() + 2_000;
    while (arrayBufferBytes() - before > 16 * MiB && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(arrayBufferBytes() - before).toBeLessThan(16 * MiB);
  });

  it('a blob writer sweeps as it writes: 64 MiB of fresh chunks leave little dead memory behind', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-sweep-'));
    try {
      const writer = await createFsBlobStore({ root, hashing: { threads: false } }).writer();
      // from a clean heap: what earlier tests left dead would otherwise make V8 collect early, sweep or not
      v8Collector()!({ type: 'major' });
      const before = arrayBufferBytes();
      let most = 0;
      for (let i = 0; i < 64; i++) {
        await writer.write(new Uint8Array(new ArrayBuffer(MiB)).fill(i));
        most = Math.max(most, arrayBufferBytes() - before);
      }
      await writer.commit();
      // without the sweep V8 lets about 64 MB of dead chunks pile up before it collects them
      expect(most).toBeLessThan(12 * MiB);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
