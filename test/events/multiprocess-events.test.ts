import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
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
import { createClient, freePort, startCustody, type ServeProcess } from '../support/process.ts';

const CB = 'https://client.example/events-done';
const SECRET = 'zoom-secret-token-multiprocess';
const all = { all_selected: true, selected: [], excluded: [] };

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** An API process (WORKERS=none) receives the webhooks; a separate `custody worker` does the work. */
describe.skipIf(!pgUrl)('provider events with separate API and worker processes on PostgreSQL', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-ev-mp-'));
  let db: ScratchDatabase | undefined;
  let zoom: ZoomSandbox;
  let ms: MicrosoftSandbox;
  let apiProc: ServeProcess;
  let worker: ServeProcess;
  let call: Call;
  let token: string;

  const api = (method: string, p: string, json?: unknown) => call(token, method, p, json === undefined ? {} : { json });
  const eventRuns = async (id: string) =>
    ((await jsonOf(await api('GET', `/v1/collections/${id}/runs`), 200)).runs as Json[]).filter(
      (r) => r.trigger === 'event',
    );

  beforeAll(async () => {
    db = await scratchDatabase('custody_ev');
    [zoom, ms] = await Promise.all([
      startZoomSandbox({
        seed: 91,
        users: 4,
        meetingsPerUser: 1,
        channels: 1,
        messagesPerChannel: 2,
        messagesPerChat: 2,
      }),
      startMicrosoftSandbox({ seed: 92, users: 2, usersWithoutDrive: 0, folderDepth: 1, filesPerFolder: 1 }),
    ]);
    const port = await freePort();
    const env = {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      CUSTODY_SECRET_KEY: crypto.randomBytes(24).toString('base64'),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
      ZOOM_WEBHOOK_SECRET_TOKEN: SECRET,
      SUBSCRIPTION_CHECK_SECONDS: '1',
      ...simulatorEnv(zoom, ms),
    };
    apiProc = await startCustody('api', { ...env, WORKERS: 'none' }, { port });
    worker = await startCustody('worker', env, { worker: true });
    call = httpCaller(apiProc.url);
    token = await tokenFor(
      call,
      await createClient({ DATABASE_URL: env.DATABASE_URL, DATA_DIR: dataDir }, 'acme', [CB]),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all([apiProc, worker].filter(Boolean).map((p) => p.stop('SIGTERM', 10_000)));
    await Promise.all([zoom?.close(), ms?.close()]);
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('a Zoom webhook received by the API process leads to an event run on the worker', async () => {
    const owner = zoom.tenant.users.find((u) => u.status === 'active')!;
    const id = await newCollection(call, token, 'conf', 'zoom-events');
    await pairFlow(call, token, id, { type: 'conf', redirectTo: CB, state: 'z', callbackOrigin: apiProc.url });
    const filters = {
      account_owners: { all_selected: false, selected: [{ id: owner.id }], excluded: [] },
      content_selections: all,
    };
    expect(
      (
        await api('PATCH', `/v1/collections/${id}`, {
          sync_filters: filters,
          type_sync: 'auto',
          sync_status: 'pending',
        })
      ).status,
    ).toBe(204);
    await waitForStatus(call, token, id, ['synced'], 60_000);
    expect(await zoom.webhooks.subscribe({ url: `${apiProc.url}/v1/webhooks/zoom`, secretToken: SECRET })).toBe(true);
    const meeting = await zoom.webhooks.addRecording(owner.id);
    await until('the recording', async () =>
      (await listItems(call, token, id)).some(
        (i) =>
          i.source_id.includes(meeting.recording_files[0].id) ||
          JSON.stringify(i).includes(meeting.recording_files[0].id),
      ),
    );
    const runs = await eventRuns(id);
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(runs[0].custodians).toEqual([owner.id]);
    // the API process never ran anything: runs are started by the worker
    expect(apiProc.logs().some((l) => l.msg === 'run started')).toBe(false);
    expect(worker.logs().some((l) => l.msg === 'run started' && l.run_id === runs[0].run_id)).toBe(true);
  }, 120_000);

  it('the worker keeps the Graph subscription and a notification to the API process runs the delta on the worker', async () => {
    const [alice] = ms.tenant.users.map((u) => u.id) as [string];
    const id = await newCollection(call, token, 'edrive', 'drive-events');
    await pairFlow(call, token, id, { type: 'edrive', redirectTo: CB, state: 'm', callbackOrigin: apiProc.url });
    const filters = { [alice]: { ...all, filter_type: 'user_folders', filter_name: 'Alice' } };
    expect(
      (
        await api('PATCH', `/v1/collections/${id}`, {
          sync_filters: filters,
          type_sync: 'auto',
          sync_status: 'pending',
        })
      ).status,
    ).toBe(204);
    await waitForStatus(call, token, id, ['synced'], 60_000);
    const sub = await until('the subscription', async () =>
      ms.subscriptions.list().find((s) => s.resource === `/users/${alice}/drive/root`),
    );
    expect(sub.notificationUrl).toBe(`${apiProc.url}/v1/webhooks/microsoft`);
    const file = ms.mutate.addFile(alice, ms.listItems(alice)[0].id, 'late-night.txt', Buffer.from('preserve me'));
    await until('the new file', async () => (await listItems(call, token, id)).some((i) => i.source_id === file.id));
    const runs = await eventRuns(id);
    expect(runs[0].custodians).toEqual([alice]);
    expect(worker.logs().some((l) => l.msg === 'run started' && l.run_id === runs[0].run_id)).toBe(true);
  }, 120_000);
});
