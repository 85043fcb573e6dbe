import { describe, expect, it } from 'vitest';
import { SentWindow } from '../../src/provider/sent-window.ts';

describe('SentWindow (what left under a rate lately)', () => {
  it('has room while the last second holds fewer than the rate, rounded up', () => {
    const sent = new SentWindow();
    for (let i = 0; i < 18; i++) sent.record(1000 + i, 1);
    // 18 sent at 18.4/s: the 19th fits now.
    expect(sent.wait(1100, 18.4, 1)).toBe(0);
  });

  it('says how long until the oldest send that must leave the second has left it', () => {
    const sent = new SentWindow();
    // 19 sends: 10 at t=1000, 9 at t=1400. One more at 19/s needs the first gone from the second: it leaves at
    // exactly one second, so 1 ms after t=2000.
    for (let i = 0; i < 10; i++) sent.record(1000, 1);
    for (let i = 0; i < 9; i++) sent.record(1400, 1);
    expect(sent.wait(1500, 19, 1)).toBe(501);
    // Once it has, the sends of t=1000 still count in the 1050 ms window, which holds 20 at 19/s (19.95 rounded up).
    expect(sent.wait(2001, 19, 10)).toBe(50);
    expect(sent.wait(2051, 19, 10)).toBe(0);
  });

  it('keeps one request more than the rate 1050 ms away from the first of them, even when the second has room', () => {
    const sent = new SentWindow();
    // 3 at t=0 (bunched by a late timer), 17 at t=500: at t=1010 the second holds 17, room for 2 more at 19/s, but
    // the 1050 ms window holds 20, all that 19/s may put in it.
    for (let i = 0; i < 3; i++) sent.record(0, 1);
    for (let i = 0; i < 17; i++) sent.record(500, 1);
    expect(sent.wait(1010, 19, 1)).toBe(41);
    expect(sent.wait(1051, 19, 1)).toBe(0);
  });

  it('lets a request costing more than the rate go into an empty window', () => {
    const sent = new SentWindow();
    expect(sent.wait(0, 2, 5)).toBe(0);
    sent.record(0, 5);
    // 2/s: the second holds 2 and 1050 ms hold 3 (2.1 rounded up); the 5 must leave both.
    expect(sent.wait(10, 2, 1)).toBe(1041);
  });
});
