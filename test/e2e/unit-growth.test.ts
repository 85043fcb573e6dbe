import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf } from '../support/app.ts';
import { startFaultedSync, type FaultedSync } from '../support/faulted-sync.ts';

/**
 * Issue 25: a worker whose units wait on a slow provider while the credential's budget has room takes on more of the
 * run's units than its job slots, and the run still collects everything. One job slot (WORKER_CONCURRENCY=1) and Zoom
 * answering in 200 ms: more than one unit at work at once can only be units taken on.
 */
describe('units taken on while they wait on the provider', () => {
  let s: FaultedSync;

  beforeAll(async () => {
    s = await startFaultedSync({
      seed: 25,
      env: { WORKER_CONCURRENCY: '1' },
      zoom: { users: 8, meetingsPerUser: 4, messagesPerChat: 3, latencyMs: 200 },
    });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  }, 60_000);

  it('runs more units at once than the worker has job slots, and collects all of them', async () => {
    const t = s.apps[0];
    const call = (path: string) => t.call(s.token, 'GET', path, {});
    expect((await t.call(s.token, 'POST', `/v1/collections/${s.conf}/start`, {})).status).toBe(200);
    let most = 0;
    const deadline = Date.now() + 90_000;
    let c = await jsonOf(await call(`/v1/collections/${s.conf}`), 200);
    while (!['synced', 'failed', 'error'].includes(c.sync_status) && Date.now() < deadline) {
      const runId = c.latest_run?.run_id as string | undefined;
      if (runId) {
        const run = await jsonOf(await call(`/v1/collections/${s.conf}/runs/${runId}`), 200);
        most = Math.max(most, (run.units as Array<{ status: string }>).filter((u) => u.status === 'running').length);
      }
      await new Promise((r) => setTimeout(r, 50));
      c = await jsonOf(await call(`/v1/collections/${s.conf}`), 200);
    }
    expect(c.sync_status).toBe('synced');
    expect(c.latest_run.status).toBe('succeeded');
    expect(most).toBeGreaterThan(1);
    // Zoom's in-flight allowance as this process reports it: from its start, 16, to ZOOM_CONCURRENCY's default, 64
    // (docs/metrics.md)
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    const line = /^custody_provider_budget_concurrency\{provider="zoom",credential="account:[^"]+"\} (\d+)$/m.exec(
      metrics,
    );
    expect(Number(line?.[1])).toBeGreaterThanOrEqual(16);
    expect(Number(line?.[1])).toBeLessThanOrEqual(64);
    const { missing, corrupt } = await s.check();
    expect(missing.filter((k) => k.startsWith('conf '))).toEqual([]);
    expect(corrupt.filter((k) => k.startsWith('conf '))).toEqual([]);
  }, 120_000);
});
