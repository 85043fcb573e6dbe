import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import { expectedItems, keyOf, shaMatcher } from '../connectors/zoom-harness.ts';
import { jsonOf, listItems, newCollection, pairFlow, waitForStatus, type Call } from '../support/app.ts';
import { pgUrl } from '../support/databases.ts';
import { pidOfLeaseOwner, startFleet, type Fleet } from '../support/fleet.ts';
import type { ServeProcess } from '../support/process.ts';
import { simulatorEnv } from '../support/scratch-database.ts';

const CB = 'https://client.example/units-done';
const all = { all_selected: true, selected: [], excluded: [] };
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/**
 * Runs fanned out into unit jobs (one per custodian) on PostgreSQL with graphile-worker: one API process and two
 * `custody worker` processes sharing one database and DATA_DIR, against the Zoom and Microsoft simulators.
 */
describe.skipIf(!pgUrl)('runs split into unit jobs across two worker processes', () => {
  let zoom: ZoomSandbox;
  let ms: MicrosoftSandbox;
  let fleet: Fleet | undefined;
  let workers: ServeProcess[] = [];
  let call: Call;
  let token: string;

  const query = <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    fleet!.query<T>(sql, params);
  const pidOf = pidOfLeaseOwner;

  beforeAll(async () => {
    [zoom, ms] = await Promise.all([
      // Every API call answered 40 ms late: a unit takes long enough for both workers to take some.
      startZoomSandbox({
        seed: 91,
        users: 8,
        meetingsPerUser: 3,
        channels: 3,
        messagesPerChannel: 4,
        messagesPerChat: 3,
        latencyMs: 40,
      }),
      startMicrosoftSandbox({ seed: 92, users: 4, usersWithoutDrive: 0, deltaPageSize: 10 }),
    ]);
    fleet = await startFleet({
      prefix: 'custody-units',
      workers: 2,
      redirects: [CB],
      env: {
        WORKER_CONCURRENCY: '2',
        // A unit whose worker died is taken over within seconds.
        RUN_LEASE_SECONDS: '2',
        JOB_SWEEP_SECONDS: '1',
        ...simulatorEnv(zoom, ms),
      },
    });
    ({ workers, call, token } = fleet);
  }, 120_000);

  afterAll(async () => {
    await fleet?.close();
    await Promise.all([zoom?.close(), ms?.close()]);
  }, 60_000);

  const confFilters: ConfFilters = {
    account_owners: all,
    content_selections: all,
    chats: { all_selected: true, selected: [], excluded: [] },
  };
  const conf = async (name: string) => {
    const id = await newCollection(call, token, 'conf', name);
    await pairFlow(call, token, id, { type: 'conf', redirectTo: CB, state: name });
    expect((await call(token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: confFilters } })).status).toBe(
      204,
    );
    return id;
  };
  const runOf = async (id: string, runId: string) => {
    const runs = (await jsonOf(await call(token, 'GET', `/v1/collections/${id}/runs`), 200)).runs as Array<{
      run_id: string;
      status: string;
      counters: { collected: number };
    }>;
    return runs.find((r) => r.run_id === runId)!;
  };
  /** Items as `kind\0source_id` with their SHA-256, and that no item is there twice. */
  const collected = async (id: string) => {
    const got = await listItems(call, token, id);
    const keys = got.map((it) => keyOf(it.kind, it.source_id));
    expect(new Set(keys).size).toBe(keys.length);
    const dup = await query(
      'select kind, source_id from items where collection_id = $1 group by kind, source_id having count(*) > 1',
      [id],
    );
    expect(dup).toEqual([]);
    return new Map(got.map((it) => [keyOf(it.kind, it.source_id), it.sha256]));
  };

  it('collects every custodian of a Zoom and a OneDrive collection through unit jobs both workers executed', async () => {
    const confId = await conf('all');
    const users = ms.tenant.users.map((u) => u.id);
    const driveFilters = Object.fromEntries(
      users.map((u) => [
        u,
        { all_selected: true, selected: [], excluded: [], filter_type: 'user_folders', filter_name: u },
      ]),
    );
    const driveId = await newCollection(call, token, 'edrive', 'drive');
    await pairFlow(call, token, driveId, { type: 'edrive', redirectTo: CB, state: 'drive' });
    expect(
      (await call(token, 'PATCH', `/v1/collections/${driveId}`, { json: { sync_filters: driveFilters } })).status,
    ).toBe(204);

    for (const id of [confId, driveId])
      expect((await call(token, 'POST', `/v1/collections/${id}/start`)).status).toBe(200);
    const [confDone, driveDone] = await Promise.all(
      [confId, driveId].map((id) => waitForStatus(call, token, id, ['synced'], 90_000, 200)),
    );

    // Zoom: exactly the items the filters select, with the simulator's bytes.
    const want = expectedItems(zoom, confFilters).items;
    expect(want.size).toBeGreaterThan(30);
    const got = await collected(confId);
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [k, sha] of got) expect(sha, k).toEqual(shaMatcher(want.get(k)));
    // OneDrive: every file and folder of every user (below the drive root), files with their bytes.
    const drive = await collected(driveId);
    const wantDrive = new Map<string, string | null>();
    for (const u of users) {
      const [root, ...rest] = ms.listItems(u);
      for (const i of rest)
        if (i.id !== root.id)
          wantDrive.set(keyOf(i.kind, i.id), i.kind === 'file' ? sha256(ms.contentOf(u, i.id)) : null);
    }
    expect([...drive.keys()].sort()).toEqual([...wantDrive.keys()].sort());
    for (const [k, sha] of drive) expect(sha, k).toBe(wantDrive.get(k));

    for (const [id, done, custodians] of [
      [confId, confDone, zoom.tenant.users.filter((u) => u.status !== 'pending').length],
      [driveId, driveDone, users.length],
    ] as const) {
      const runId = done.latest_run.run_id as string;
      const run = await runOf(id, runId);
      expect(run.status).toBe('succeeded');
      // One unit job per custodian, each done, the run's counters the sum of the items.
      const units = await query<{ unit_key: string; status: string; lease_owner: string }>(
        'select unit_key, status, lease_owner from unit_jobs where run_id = $1',
        [runId],
      );
      expect(units).toHaveLength(custodians);
      expect(units.every((u) => u.status === 'done')).toBe(true);
      expect(run.counters.collected).toBe(id === confId ? want.size : wantDrive.size);
      // Every custodian's reconciliation written by its own unit, and the totals add up.
      const r = await jsonOf(await call(token, 'GET', `/v1/collections/${id}/runs/${runId}/reconciliation`), 200);
      expect(r.balanced).toBe(true);
      const perCustodian = (r.custodians as Array<{ custodian: string; unit_kind: string; collected: number }>).filter(
        (x) => x.unit_kind === 'custodian',
      );
      expect(perCustodian.map((x) => x.custodian).sort()).toEqual(units.map((u) => u.unit_key).sort());
      expect((r.custodians as Array<{ collected: number }>).reduce((n, x) => n + x.collected, 0)).toBe(
        run.counters.collected,
      );
    }
    // Both worker processes executed units.
    const owners = await query<{ lease_owner: string }>('select lease_owner from unit_jobs');
    const pids = new Set(owners.map((o) => pidOf(o.lease_owner)));
    expect(workers.map((w) => pids.has(w.child.pid!))).toEqual([true, true]);
  }, 150_000);

  it('finishes a unit whose worker was SIGKILLed mid-unit on the other worker, with the full set and no duplicate', async () => {
    const id = await conf('killed');
    expect((await call(token, 'POST', `/v1/collections/${id}/start`)).status).toBe(200);
    const victim = workers[0];
    // Wait until the victim holds a unit that has already stored part of its items.
    let unit: { run_id: string; unit_key: string } | undefined;
    for (const deadline = Date.now() + 60_000; !unit && Date.now() < deadline;) {
      const rows = await query<{ run_id: string; unit_key: string; lease_owner: string; collected: number }>(
        "select run_id, unit_key, lease_owner, collected from unit_jobs where status = 'running' and collected > 0",
      );
      unit = rows.find((r) => pidOf(r.lease_owner) === victim.child.pid);
      if (!unit) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(unit, 'the victim worker never held a unit mid-way').toBeDefined();
    await victim.stop('SIGKILL');

    const done = await waitForStatus(call, token, id, ['synced'], 90_000, 200);
    const want = expectedItems(zoom, confFilters).items;
    const got = await collected(id);
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [k, sha] of got) expect(sha, k).toEqual(shaMatcher(want.get(k)));
    const runId = done.latest_run.run_id as string;
    expect(runId).toBe(unit!.run_id);
    const run = await runOf(id, runId);
    expect(run.status).toBe('succeeded');
    // Each item collected once: what the victim stored before it died is not counted (nor stored) again.
    expect(run.counters.collected).toBe(want.size);
    // The survivor took the victim's unit over and finished it.
    const [taken] = await query<{ status: string; lease_owner: string; attempt: number }>(
      'select status, lease_owner, attempt from unit_jobs where run_id = $1 and unit_key = $2',
      [unit!.run_id, unit!.unit_key],
    );
    expect([taken.status, pidOf(taken.lease_owner), taken.attempt]).toEqual(['done', workers[1].child.pid, 2]);
  }, 150_000);
});
