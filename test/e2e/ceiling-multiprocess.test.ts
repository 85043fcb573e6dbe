import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { newCollection, pairFlow, waitForStatus } from '../support/app.ts';
import { pgUrl } from '../support/databases.ts';
import { pidOfLeaseOwner, startFleet, type Fleet } from '../support/fleet.ts';
import { simulatorEnv } from '../support/scratch-database.ts';

const CB = 'https://client.example/ceiling-done';
const all = { all_selected: true, selected: [], excluded: [] };
/** ZOOM_MAX_REQUESTS_PER_SECOND and MS_MAX_RESOURCE_UNITS_PER_SECOND for the fleet (defaults start at 48 and 20). */
const CEILING = 10;
/**
 * How late after its budget slot a request may reach the simulator: the budget still sends one that wakes up to two
 * slots (200 ms) after its time, then the loopback hop and the event loops of seven processes on a machine that runs
 * two test files at once. Without a fleet-wide ceiling the two workers would send twice the ceiling.
 */
const LATE_MS = 500;
const redisUrl = process.env.TEST_REDIS_URL;

/**
 * Issue 19: the operator's ceiling holds for the whole fleet, not per process. One API process and two
 * `custody worker` processes (separate OS processes) share one PostgreSQL database (and, when REDIS_URL is set,
 * the budget in Redis); a `conf` run and an `edrive` run, each split into units, are executed by both workers, and
 * the rate the Zoom and Microsoft simulators receive stays within ZOOM_MAX_REQUESTS_PER_SECOND and
 * MS_MAX_RESOURCE_UNITS_PER_SECOND in every window.
 */
const backends = [
  { name: 'budget in PostgreSQL', env: {} as Record<string, string> },
  ...(redisUrl ? [{ name: 'budget in Redis', env: { REDIS_URL: redisUrl } }] : []),
];

describe.skipIf(!pgUrl).each(backends)(
  "two worker processes under the operator's ceiling ($name)",
  ({ env: extra }) => {
    let zoom: ZoomSandbox;
    let ms: MicrosoftSandbox;
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
      ms = await startMicrosoftSandbox({ seed: 20, users: 4, usersWithoutDrive: 0, folderDepth: 2, filesPerFolder: 3 });
      fleet = await startFleet({
        prefix: 'custody-ceiling',
        workers: 2,
        redirects: [CB],
        env: {
          WORKER_CONCURRENCY: '2',
          ZOOM_MAX_REQUESTS_PER_SECOND: String(CEILING),
          MS_MAX_RESOURCE_UNITS_PER_SECOND: String(CEILING),
          ...simulatorEnv(zoom, ms),
          ...extra,
        },
      });
    }, 120_000);

    afterAll(async () => {
      await fleet?.close();
      await Promise.all([zoom?.close(), ms?.close()]);
    }, 60_000);

    /** A paired collection with these filters, run to its end (it must succeed): the run's id and when it started. */
    async function collectOnce(type: 'conf' | 'edrive', filters: unknown): Promise<{ runId: string; since: number }> {
      const { call, token } = fleet!;
      const id = await newCollection(call, token, type, `ceiling-${type}`);
      await pairFlow(call, token, id, { type, redirectTo: CB, state: type });
      const saved = await call(token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: filters } });
      expect(saved.status).toBe(204);
      const since = Date.now();
      expect((await call(token, 'POST', `/v1/collections/${id}/start`)).status).toBe(200);
      const done = await waitForStatus(call, token, id, ['synced'], 120_000, 200);
      if (done.latest_run.status !== 'succeeded') {
        // say why: the run's errors (each with its reason) name what failed
        const run = await call(token, 'GET', `/v1/collections/${id}/runs/${done.latest_run.run_id as string}`);
        expect(done.latest_run.status, JSON.stringify(await run.json())).toBe('succeeded');
      }
      return { runId: done.latest_run.run_id as string, since };
    }

    /**
     * The budget spaces admissions 1/ceiling apart across the fleet; a request reaches the simulator a little after
     * its slot (timers firing late on a loaded machine, the loopback hop), at most LATE_MS here. So any 2 s window at
     * the simulator holds at most the admissions of 2 s + LATE_MS, and so does the whole run's span.
     */
    function expectWithinCeiling(arrivals: number[]): void {
      const times = [...arrivals].sort((a, b) => a - b);
      expect(times.length, 'enough requests to measure a rate').toBeGreaterThanOrEqual(4 * CEILING);
      let worst = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (j < times.length && times[j] < times[i] + 2000) j++;
        worst = Math.max(worst, j - i);
      }
      expect(worst, `most requests in any 2 s: ${worst} (${times.length} in all)`).toBeLessThanOrEqual(
        Math.ceil(((2000 + LATE_MS) * CEILING) / 1000),
      );
      const span = times.at(-1)! - times[0];
      expect(times.length - 1, `requests after the first in ${span} ms`).toBeLessThanOrEqual(
        ((span + LATE_MS) * CEILING) / 1000,
      );
    }

    /** Both worker processes executed units of the run, so the two were requesting under one budget. */
    async function expectBothWorkers(runId: string): Promise<void> {
      const owners = await fleet!.query<{ lease_owner: string }>(
        'select lease_owner from unit_jobs where run_id = $1',
        [runId],
      );
      const pids = new Set(owners.map((o) => pidOfLeaseOwner(o.lease_owner)));
      expect(fleet!.workers.map((w) => pids.has(w.child.pid!))).toEqual([true, true]);
    }

    it('keeps the fleet at or under ZOOM_MAX_REQUESTS_PER_SECOND at the simulator, both workers requesting', async () => {
      const { runId, since } = await collectOnce('conf', { account_owners: all, content_selections: all, chats: all });
      // Zoom API requests (its token endpoint is not rate-limited by Custody's budget, nor counted by Zoom's limits).
      expectWithinCeiling(
        zoom.requests
          .filter((r) => r.at >= since && r.listener === 'main' && r.path.startsWith('/v2/'))
          .map((r) => r.at),
      );
      await expectBothWorkers(runId);
    }, 150_000);

    it('keeps the fleet at or under MS_MAX_RESOURCE_UNITS_PER_SECOND at the simulator, both workers requesting', async () => {
      const { runId, since } = await collectOnce(
        'edrive',
        Object.fromEntries(
          ms.tenant.users.map((u) => [u.id, { filter_type: 'user_folders', filter_name: u.id, ...all }]),
        ),
      );
      // Every Graph call costs at least one resource unit, so Graph requests per second bound the units per second
      // from below: they too must stay within the ceiling. A download is one admission: the listed download URL
      // on the download host, or `…/content` and its 302 hop there, followed inside the same slot (counted once: the
      // hop, not the 302). The sign-in host is not SharePoint traffic and has its own budget.
      expectWithinCeiling(
        ms.requests
          .filter((r) => r.at >= since && (r.host === 'download' || (r.host === 'graph' && r.status !== 302)))
          .map((r) => r.at),
      );
      await expectBothWorkers(runId);
    }, 150_000);
  },
);
