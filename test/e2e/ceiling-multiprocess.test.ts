import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { newCollection, pairFlow, waitForStatus } from '../support/app.ts';
import { pgUrl } from '../support/databases.ts';
import { pidOfLeaseOwner, startFleet, type Fleet } from '../support/fleet.ts';
import { simulatorEnv } from '../support/scratch-database.ts';

const CB = 'https://client.example/ceiling-done';
const all = { all_selected: true, selected: [], excluded: [] };
/** ZOOM_MAX_REQUESTS_PER_SECOND for the fleet; Zoom's default starting rate (48/s) is well above it. */
const CEILING = 10;
/** How late after its budget slot a request may reach the simulator. */
const LATE_MS = 250;
const redisUrl = process.env.TEST_REDIS_URL;

/**
 * Issue 19: the operator's ceiling holds for the whole fleet, not per process. One API process and two
 * `custody worker` processes (separate OS processes) share one PostgreSQL database (and, when REDIS_URL is set,
 * the budget in Redis); one `conf` run split into units is executed by both workers, and the rate of Zoom API
 * requests the simulator receives stays within ZOOM_MAX_REQUESTS_PER_SECOND in every window.
 */
const backends = [
  { name: 'budget in PostgreSQL', env: {} as Record<string, string> },
  ...(redisUrl ? [{ name: 'budget in Redis', env: { REDIS_URL: redisUrl } }] : []),
];

describe.skipIf(!pgUrl).each(backends)(
  "two worker processes under the operator's ceiling ($name)",
  ({ env: extra }) => {
    let zoom: ZoomSandbox;
    let fleet: Fleet | undefined;

    beforeAll(async () => {
      // Every API call answered 30 ms late: units last long enough for both workers to take some.
      zoom = await startZoomSandbox({
        seed: 19,
        users: 4,
        meetingsPerUser: 1,
        channels: 1,
        messagesPerChannel: 2,
        oneToOnePeersPerUser: 1,
        messagesPerChat: 2,
        latencyMs: 30,
      });
      fleet = await startFleet({
        prefix: 'custody-ceiling',
        workers: 2,
        redirects: [CB],
        env: {
          WORKER_CONCURRENCY: '2',
          ZOOM_MAX_REQUESTS_PER_SECOND: String(CEILING),
          ...simulatorEnv(zoom),
          ...extra,
        },
      });
    }, 120_000);

    afterAll(async () => {
      await fleet?.close();
      await zoom?.close();
    }, 60_000);

    it('keeps the fleet at or under ZOOM_MAX_REQUESTS_PER_SECOND at the simulator, both workers requesting', async () => {
      const { call, token, workers } = fleet!;
      const id = await newCollection(call, token, 'conf', 'ceiling');
      await pairFlow(call, token, id, { type: 'conf', redirectTo: CB, state: 'ceiling' });
      const filters = { account_owners: all, content_selections: all, chats: all };
      expect((await call(token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: filters } })).status).toBe(
        204,
      );

      const from = zoom.requests.length;
      expect((await call(token, 'POST', `/v1/collections/${id}/start`)).status).toBe(200);
      const done = await waitForStatus(call, token, id, ['synced'], 120_000, 200);
      expect(done.latest_run.status).toBe('succeeded');

      // Zoom API requests (its token endpoint is not rate-limited by Custody's budget, nor counted by Zoom's limits).
      const times = zoom.requests
        .slice(from)
        .filter((r) => r.listener === 'main' && r.path.startsWith('/v2/'))
        .map((r) => r.at)
        .sort((a, b) => a - b);
      expect(times.length, 'enough requests to measure a rate').toBeGreaterThanOrEqual(4 * CEILING);
      // The budget spaces admissions 1/ceiling apart across the fleet; a request reaches the simulator a little after
      // its slot (timers firing late on a loaded machine, the loopback hop), at most LATE_MS here. So any 2 s window
      // at the simulator holds at most the admissions of 2 s + LATE_MS.
      let worst = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (j < times.length && times[j] < times[i] + 2000) j++;
        worst = Math.max(worst, j - i);
      }
      expect(worst, `most requests in any 2 s: ${worst} (${times.length} in all)`).toBeLessThanOrEqual(
        Math.ceil(((2000 + LATE_MS) * CEILING) / 1000),
      );
      const seconds = (times.at(-1)! - times[0]) / 1000;
      expect((times.length - 1) / seconds).toBeLessThanOrEqual(CEILING);

      // Both worker processes executed units of the run, so the two were requesting under one budget.
      const owners = await fleet!.query<{ lease_owner: string }>(
        'select lease_owner from unit_jobs where run_id = $1',
        [done.latest_run.run_id],
      );
      const pids = new Set(owners.map((o) => pidOfLeaseOwner(o.lease_owner)));
      expect(workers.map((w) => pids.has(w.child.pid!))).toEqual([true, true]);
    }, 150_000);
  },
);
