import { describe, expect, it } from 'vitest';
import { takesOnMore, type GrowSignals } from '../../src/sync/execution/unit-load.ts';

// docs/sync.md: more of a run's units are taken on while they spend most of the time waiting on the provider, the
// credential's budget has room, the event loop is not busy, and fewer of the credential's units are at work than it
// allows requests in flight (at most 16 taken on per process).
const waiting: GrowSignals = {
  starved: 0.9,
  busy: 0.3,
  room: true,
  units: 4,
  concurrency: 16,
  takenOn: 0,
  stopping: false,
};

describe('taking on more units', () => {
  it('takes one on while the units wait on the provider and nothing else binds', () => {
    expect(takesOnMore(waiting)).toBe(true);
    expect(takesOnMore({ ...waiting, starved: 0.5, busy: 0.69, units: 15, takenOn: 15 })).toBe(true);
  });

  it.each([
    ['the units mostly write (the provider is not what they wait on)', { starved: 0.49 }],
    ['the event loop is busy', { busy: 0.7 }],
    ['the budget has no room (its rate binds, a pause, every slot held at the most)', { room: false }],
    ["as many of the credential's units as it allows requests in flight", { units: 16 }],
    ['16 taken on in this process already', { takenOn: 16 }],
    ['a unit of the run, or the process, is stopping', { stopping: true }],
  ])('takes none on when %s', (_why, change: Partial<GrowSignals>) => {
    expect(takesOnMore({ ...waiting, ...change })).toBe(false);
  });
});
