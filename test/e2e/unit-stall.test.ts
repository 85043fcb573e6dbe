import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf } from '../support/app.ts';
import { startFaultedSync, type FaultedSync } from '../support/faulted-sync.ts';

/**
 * Progress, not the heartbeat, keeps a unit alive: against a Zoom that stops answering (every API request hangs),
 * each unit is stopped after UNIT_STALL_SECONDS without progress, retried, failed when its attempts are used up,
 * and the run finishes; custody_units_stalled_total counts the stops.
 */
describe('units that make no progress are stopped and the run ends', () => {
  let s: FaultedSync;
  let release: () => void = () => undefined;

  beforeAll(async () => {
    s = await startFaultedSync({
      seed: 23,
      env: { UNIT_STALL_SECONDS: '1', JOB_SWEEP_SECONDS: '0.2', RUN_LEASE_SECONDS: '2' },
      zoom: { users: 2, meetingsPerUser: 1 },
    });
  }, 60_000);
  afterAll(async () => {
    release();
    await s?.close();
  }, 60_000);

  it('fails every stalled unit after its attempts, ends the run, and counts the stops', async () => {
    const t = s.apps[0];
    expect((await t.call(s.token, 'POST', `/v1/collections/${s.conf}/start`, {})).status).toBe(200);
    // once the units are at work (the plan is made before the fan-out), Zoom stops answering
    const planned = Date.now() + 20_000;
    while (!s.zoom.requests.some((r) => r.path.includes('/recordings')) && Date.now() < planned)
      await new Promise((r) => setTimeout(r, 5));
    s.zoom.faults.stall = new Promise<void>((resolve) => (release = resolve));
    const deadline = Date.now() + 45_000;
    let c = await jsonOf(await t.call(s.token, 'GET', `/v1/collections/${s.conf}`, {}), 200);
    while (!['synced', 'failed', 'error'].includes(c.sync_status) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      c = await jsonOf(await t.call(s.token, 'GET', `/v1/collections/${s.conf}`, {}), 200);
    }
    expect(c.sync_status).toMatch(/^(synced|failed)$/);
    expect(['failed', 'completed_with_errors']).toContain(c.latest_run.status);
    const run = await jsonOf(
      await t.call(s.token, 'GET', `/v1/collections/${s.conf}/runs/${c.latest_run.run_id}`, {}),
      200,
    );
    expect(JSON.stringify(run.errors)).toMatch(/no progress/);
    expect(run.units.length).toBe(2);
    for (const unit of run.units) {
      expect(unit).toMatchObject({ status: 'failed', attempt: 3, error: expect.stringMatching(/no progress/) });
      expect(Number.isNaN(Date.parse(unit.last_progress_at))).toBe(false);
    }
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    const line = metrics.split('\n').find((l) => l.startsWith('custody_units_stalled_total{type="conf"}'));
    expect(Number(line?.split(' ')[1] ?? 0)).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
