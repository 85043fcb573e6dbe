import { describe, expect, it } from 'vitest';
import { holdLease } from '../../src/sync/execution/lease.ts';

// What a lease hands back when the work it holds stops without finishing: a shutdown of work that was making progress
// gives its attempt back (restarts must not add up to the 3 stalled attempts that fail it); work without progress for
// the stall limit keeps it counted, however it stopped.

const STALL_MS = 60_000;
const silent = { info() {}, debug() {}, warn() {}, error() {} };

function held() {
  let offsetMs = 0;
  const released: boolean[] = [];
  const lease = holdLease(
    {
      renew: async () => true,
      wasCancelled: async () => false,
      release: async (_now, shutdown) => void released.push(shutdown),
    },
    // heartbeat and watchdog checks far apart: the test decides when the work stops
    { clock: () => new Date(Date.now() + offsetMs), leaseMs: 600_000, heartbeatMs: 300_000, stallMs: STALL_MS },
    { log: silent, context: {} },
  );
  return { lease, released, pass: (ms: number) => (offsetMs += ms) };
}

describe('a lease released when its work stops', () => {
  it('gives the attempt back for a shutdown of work that made progress within the stall limit', async () => {
    const { lease, released, pass } = held();
    pass(STALL_MS - 1000);
    lease.onProgress();
    pass(STALL_MS - 1000);
    lease.stop('shutdown');
    await lease.end({ release: true });
    expect(released).toEqual([true]);
  });

  it('keeps it counted for a shutdown of work without progress for the stall limit (the watchdog not yet run)', async () => {
    const { lease, released, pass } = held();
    pass(STALL_MS + 1000);
    lease.stop('shutdown');
    await lease.end({ release: true });
    expect(released).toEqual([false]);
  });

  it('keeps it counted for any other stop', async () => {
    for (const why of ['stalled', 'lease_lost', 'cancelled'] as const) {
      const { lease, released } = held();
      lease.stop(why);
      await lease.end({ release: true });
      expect(released, why).toEqual([false]);
    }
  });
});
