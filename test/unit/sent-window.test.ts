import { describe, expect, it } from 'vitest';
import { SentWindow } from '../../src/provider/sent-window.ts';

describe('SentWindow (what left under a rate in the last second)', () => {
  it('has room while the last second holds fewer than the rate, rounded up', () => {
    const sent = new SentWindow();
    for (let i = 0; i < 18; i++) sent.record(1000 + i, 1);
    // 18 sent at 18.4/s: the 19th fits now.
    expect(sent.wait(1100, 18.4, 1)).toBe(0);
  });

  it('says how long until the oldest send that must leave the window has left it', () => {
    const sent = new SentWindow();
    // 19 sends: 10 at t=1000, 9 at t=1400. Two more at 19/s need the first two gone: the window drops a send at
    // exactly one second, so 1 ms after t=2000.
    for (let i = 0; i < 10; i++) sent.record(1000, 1);
    for (let i = 0; i < 9; i++) sent.record(1400, 1);
    expect(sent.wait(1500, 19, 1)).toBe(501);
    expect(sent.wait(1500, 19, 2)).toBe(501);
    // After it, sends older than a second no longer count.
    expect(sent.wait(2001, 19, 10)).toBe(0);
    expect(sent.wait(2001, 19, 11)).toBe(400);
  });

  it('lets a request costing more than the rate go into an empty window', () => {
    const sent = new SentWindow();
    expect(sent.wait(0, 2, 5)).toBe(0);
    sent.record(0, 5);
    expect(sent.wait(10, 2, 1)).toBe(991);
  });
});
