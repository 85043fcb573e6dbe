import { describe, expect, it } from 'vitest';
import { countWaits, LevelGauge, waitGauges } from '../../src/provider/wait-gauge.ts';

describe('LevelGauge (where a run waits, for the allowance bench)', () => {
  it('weighs each level by how long it held, and counts the time at zero', () => {
    let t = 1000;
    const gauge = new LevelGauge(() => t);
    t = 1100; // 100 ms at 0
    gauge.add(2);
    t = 1400; // 300 ms at 2
    gauge.add(-1);
    t = 1500; // 100 ms at 1
    gauge.add(-1);
    t = 1600; // 100 ms at 0
    // 600 ms: 200 at zero; area 2*300 + 1*100 = 700
    expect(gauge.read()).toEqual({ zeroShare: 200 / 600, mean: 700 / 600 });
  });

  it('a reset forgets what was counted but keeps the level in force', () => {
    let t = 0;
    const gauge = new LevelGauge(() => t);
    t = 500;
    gauge.add(3);
    t = 900;
    gauge.reset();
    t = 1100;
    expect(gauge.read()).toEqual({ zeroShare: 0, mean: 3 });
  });

  it('counts nothing while off, and from level 0 once switched on', () => {
    let t = 0;
    const gauge = new LevelGauge(() => t, false);
    gauge.add(5);
    t = 1000;
    expect(gauge.current).toBe(0);
    expect(gauge.read()).toEqual({ zeroShare: 1, mean: 0 });
    gauge.count(true);
    gauge.add(2);
    t = 1500;
    expect(gauge.read()).toEqual({ zeroShare: 0, mean: 2 });
  });

  it("the process's gauges are off until the bench switches them on", () => {
    waitGauges.inFlight.add(1);
    expect(waitGauges.inFlight.current).toBe(0);
    countWaits(true);
    waitGauges.inFlight.add(1);
    expect(waitGauges.inFlight.current).toBe(1);
    countWaits(false);
    expect(waitGauges.inFlight.current).toBe(0);
  });
});
