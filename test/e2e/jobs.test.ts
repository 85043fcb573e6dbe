import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import { expectedItems, keyOf } from '../connectors/zoom-harness.ts';
import {
  httpCaller,
  jsonOf,
  listItems,
  newCollection,
  pairFlow,
  tokenFor,
  waitForStatus,
  type Call,
  type Json,
} from '../support/app.ts';
import { pgUrl } from '../support/databases.ts';
import { scratchDatabase, simulatorEnv, type ScratchDatabase } from '../support/scratch-database.ts';
import { createClient, startCustody, type ServeProcess } from '../support/process.ts';

const CB = 'https://client.example/jobs-done';
const all = { all_selected: true, selected: [], excluded: [] };
const everything: ConfFilters = { account_owners: all, content_selections: all };

/**
 * Runs and schedules as graphile-worker jobs (PostgreSQL mode), with real `bin/custody` worker processes: a worker
 * killed with SIGKILL mid-run has its run finished by another; a schedule fires as a job at its run_at; a cancelled
 * run stops on the worker executing it. The Zoom simulator answers every API request 25 ms late so runs last seconds.
 */
describe.skipIf(!pgUrl)('graphile-worker jobs across worker processes', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-jobs-'));
  let db: ScratchDatabase | undefined;
  let zoom: ZoomSandbox;
  let api: ServeProcess;
  const workers: ServeProcess[] = [];
  let call: Call;
  let token: string;
  let env: Record<string, string>;
  // Zoom's stall (sandbox/zoom/faults.ts): set by the cancel test, lifted by it and after all
  let release = () => {};
  const unstall = () => {
    zoom.faults.stall = null;
    release();
  };

  // A run is planned by one worker and split into unit jobs (one per custodian) that any worker takes.
  const startedBy = (p: ServeProcess, runId: string) =>
    p.logs().some((l) => (l.msg === 'run started' || l.msg === 'unit started') && l.run_id === runId);
  const runsOf = async (id: string) =>
    (await jsonOf(await call(token, 'GET', `/v1/collections/${id}/runs`), 200)).runs as Json[];
  const until = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const got = await probe();
      if (got !== undefined) return got;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const collection = async (name: string, typeSync: 'one' | 'auto') => {
    const id = await newCollection(call, token, 'conf', name);
    await pairFlow(call, token, id, { type: 'conf', redirectTo: CB, state: name });
    expect(
      (await call(token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: everything, type_sync: typeSync } }))
        .status,
    ).toBe(204);
    return id;
  };

  beforeAll(async () => {
    db = await scratchDatabase('custody_jobs');
    zoom = await startZoomSandbox({
      seed: 91,
      users: 12,
      meetingsPerUser: 3,
      channels: 2,
      messagesPerChannel: 3,
      messagesPerChat: 2,
      latencyMs: 25,
    });
    env = {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      CUSTODY_SECRET_KEY: crypto.randomBytes(24).toString('base64'),
      LOG_LEVEL: 'info',
      WORKER_CONCURRENCY: '1',
      JOB_SWEEP_SECONDS: '1',
      ...simulatorEnv(zoom),
    };
    api = await startCustody('api', { ...env, WORKERS: 'none' });
    call = httpCaller(api.url);
    token = await tokenFor(
      call,
      await createClient({ DATABASE_URL: env.DATABASE_URL, DATA_DIR: dataDir }, 'acme', [CB]),
    );
  }, 120_000);

  afterAll(async () => {
    if (zoom) unstall();
    await Promise.all([api, ...workers].filter(Boolean).map((p) => p.stop('SIGTERM', 10_000)));
    await zoom?.close();
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('a worker killed with SIGKILL mid-run: another worker takes the run over and finishes it, each item stored once', async () => {
    workers.push(
      await startCustody('worker-1', env, { worker: true }),
      await startCustody('worker-2', env, { worker: true }),
    );
    const id = await collection('killed', 'one');
    const { run_id: runId } = await jsonOf(await call(token, 'POST', `/v1/collections/${id}/start`), 200);
    const first = await until('a worker to take the run', async () =>
      workers.find((w) => startedBy(w, runId as string)),
    );
    await until('items to be collected', async () => {
      const run = (await runsOf(id))[0];
      return (run.counters as { collected: number }).collected > 0 ? run : undefined;
    });
    await first.stop('SIGKILL');
    const other = workers.find((w) => w !== first)!;
    await waitForStatus(call, token, id, ['synced'], 60_000, 200);
    expect(startedBy(other, runId as string)).toBe(true);

    const expected = expectedItems(zoom, everything).items;
    const got = await listItems(call, token, id);
    const keys = got.map((it) => keyOf(it.kind, it.source_id)).sort();
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual([...expected.keys()].sort());
    const runs = await runsOf(id);
    expect(runs.map((r) => [r.run_id, r.status])).toEqual([[runId, 'succeeded']]);
    workers.splice(workers.indexOf(first), 1);
  }, 120_000);

  it('an auto collection re-runs through its schedule job (run_at), with the sweep out of the way', async () => {
    for (const w of workers.splice(0)) await w.stop('SIGTERM', 10_000);
    // 3 s between runs; the sweep (which would also find the due collection) every 10 minutes
    const scheduled = await startCustody(
      'worker-3',
      { ...env, SYNC_INTERVAL_MINUTES: '0.05', JOB_SWEEP_SECONDS: '600' },
      { worker: true },
    );
    workers.push(scheduled);
    const id = await collection('scheduled', 'auto');
    expect((await call(token, 'POST', `/v1/collections/${id}/start`)).status).toBe(200);
    await waitForStatus(call, token, id, ['synced'], 60_000, 200);
    // the schedule job's handler logs this; no sweep ran since the collection existed
    const rerun = await until('the scheduled run', async () => {
      const runs = await runsOf(id);
      return runs.find((r) => r.trigger === 'schedule' && r.status === 'succeeded');
    });
    expect(
      scheduled
        .logs()
        .some((l) => l.msg === 'scheduled run queued' && l.collection_id === id && l.run_id === rerun.run_id),
    ).toBe(true);
  }, 120_000);

  it('a cancelled run stops on the worker executing it within seconds; what was collected stays', async () => {
    const worker = workers[0];
    const id = await collection('cancelled', 'one');
    const { run_id: runId } = await jsonOf(await call(token, 'POST', `/v1/collections/${id}/start`), 200);
    await until('the run to collect', async () => {
      const run = (await runsOf(id))[0];
      return (run.counters as { collected: number }).collected > 0 ? run : undefined;
    });
    // Zoom stops answering until the worker (one job at a time) is inside this run: a request of it waits at Zoom, so
    // the cancel meets a unit at work, not one that just ended (whose run then has nothing executing to stop).
    const lastStarted = () =>
      worker.logs().findLast((l) => l.msg === 'run started' || l.msg === 'unit started')?.run_id;
    await until('a request of the run to wait at Zoom', async () => {
      if (!zoom.faults.stall) zoom.faults.stall = new Promise<void>((resolve) => (release = resolve));
      // waiting now: a request that arrived before the stall was set and reached it after counts too
      if (zoom.faults.stalled === 0) return;
      if (lastStarted() === runId) return true;
      unstall(); // the other collection's scheduled run: let it through and try again
    });
    expect((await call(token, 'POST', `/v1/collections/${id}/runs/${runId as string}/cancel`)).status).toBe(202);
    await worker.waitForLog(
      (l) => l.run_id === runId && (l.msg === 'run stopped: cancelled' || l.msg === 'unit stopped: cancelled'),
      10_000,
    );
    unstall();
    const run = (await runsOf(id))[0];
    expect(run.status).toBe('cancelled');
    const collected = (run.counters as { collected: number }).collected;
    // nothing is written once it is cancelled, and the items stay
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(((await runsOf(id))[0].counters as { collected: number }).collected).toBe(collected);
    expect((await listItems(call, token, id)).length).toBeGreaterThan(0);
  }, 120_000);
});
