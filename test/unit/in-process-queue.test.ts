import { describe, expect, it } from 'vitest';
import { createInProcessQueue } from '../../src/sync/jobs/in-process.ts';
import type { JobHandlers } from '../../src/sync/jobs/registry.ts';

const quiet = { info() {}, warn() {}, error() {} };
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the in-process queue', () => {
  it('looks for no work once it is stopping, even while a sweep it waits for goes on', async () => {
    let looked = 0;
    let stopping = false;
    let lookedWhileStopping = 0;
    let sweepStarted!: () => void;
    const sweeping = new Promise<void>((resolve) => (sweepStarted = resolve));
    let endSweep!: () => void;
    const handlers = {
      'custody.sweep': () => {
        sweepStarted();
        return new Promise<void>((resolve) => (endSweep = resolve));
      },
    } as unknown as JobHandlers;
    const queue = createInProcessQueue({
      concurrency: 2,
      sweepMs: 5,
      pollMs: 5,
      claimable: async () => {
        looked += 1;
        if (stopping) lookedWhileStopping += 1;
        return [];
      },
      log: quiet,
    });
    await queue.startWorking(handlers);
    await sweeping;
    await tick(20);
    expect(looked).toBeGreaterThan(0);

    stopping = true;
    const stopped = queue.stop();
    // work that stopping workers give back is announced: nothing may take it up until the process has stopped
    await queue.unitQueued('run', 'unit');
    await tick(40);
    endSweep();
    await stopped;
    expect(lookedWhileStopping).toBe(0);
  });
});
