import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { jsonOf, newCollection, pairFlow, startTestApp, type Json, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const CB = 'https://client.example/zoom-done';
const SECRET = 'zoom-app-secret-token-e2e';

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sandbox change → signed webhook → inbox → targeted `event` run → item listed, on the real runtime. */
describe.each(testDatabases.map((d) => [d.name, d] as const))('Zoom webhooks end to end on %s', (_name, database) => {
  let sandbox: ZoomSandbox;
  let t: TestApp;
  let token: string;
  let collectionId: string;
  let selected: string[];
  let unselected: string;
  const call = (method: string, path: string, body?: unknown) =>
    t.call(token, method, path, body === undefined ? {} : { json: body });
  const runs = async () =>
    (await jsonOf(await call('GET', `/v1/collections/${collectionId}/runs?limit=200`), 200)).runs as Json[];
  const items = () => t.items(token, collectionId);
  const inbox = () => t.runtime.ctx.db.selectFrom('provider_events').selectAll().orderBy('received_at').execute();

  beforeAll(async () => {
    sandbox = await startZoomSandbox({
      seed: 7,
      users: 5,
      meetingsPerUser: 2,
      channels: 2,
      messagesPerChannel: 3,
      messagesPerChat: 3,
    });
    t = await startTestApp({
      database,
      env: {
        ZOOM_CLIENT_ID: sandbox.clientId,
        ZOOM_CLIENT_SECRET: sandbox.clientSecret,
        ZOOM_OAUTH_URL: sandbox.oauthUrl,
        ZOOM_API_URL: sandbox.apiUrl,
        ZOOM_WEBHOOK_SECRET_TOKEN: SECRET,
        EVENT_COALESCE_SECONDS: '0.5',
      },
    });
    token = await t.token('acme', [CB]);
    const active = sandbox.tenant.users.filter((u) => u.status === 'active');
    selected = active.slice(0, 2).map((u) => u.id);
    unselected = active[2].id;
    collectionId = await newCollection(t.call, token, 'conf', 'events');
    await pairFlow(t.call, token, collectionId, { type: 'conf', redirectTo: CB, state: 's1', callbackOrigin: t.url });
    const filters = {
      account_owners: { all_selected: false, selected: selected.map((id) => ({ id })), excluded: [] },
      content_selections: { all_selected: true, selected: [], excluded: [] },
      chats: { all_selected: false, selected: [{ 'one-to-one': true }], excluded: [] },
    };
    expect(
      (
        await call('PATCH', `/v1/collections/${collectionId}`, {
          sync_filters: filters,
          type_sync: 'auto',
          sync_status: 'pending',
        })
      ).status,
    ).toBe(204);
    await t.waitForStatus(token, collectionId, ['synced'], 60_000);
  });

  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  it('learns the paired Zoom account at pairing and passes the endpoint validation', async () => {
    const wallets = await t.runtime.ctx.db.selectFrom('wallets').select('provider_account_id').execute();
    expect(wallets.map((w) => w.provider_account_id)).toEqual([sandbox.tenant.accountId]);
    expect(await sandbox.webhooks.subscribe({ url: `${t.url}/v1/webhooks/zoom`, secretToken: SECRET })).toBe(true);
    expect(await sandbox.webhooks.subscribe({ url: `${t.url}/v1/webhooks/zoom`, secretToken: 'not-the-secret' })).toBe(
      false,
    );
    expect(await sandbox.webhooks.subscribe({ url: `${t.url}/v1/webhooks/zoom`, secretToken: SECRET })).toBe(true);
  });

  it('collects a new recording of a selected user through an event run limited to that user', async () => {
    const fullRunsBefore = (await runs()).filter((r) => r.trigger !== 'event').length;
    const meeting = await sandbox.webhooks.addRecording(selected[0], { topic: 'Evidence meeting' });
    const listed = await until('the recording to be listed', async () => {
      const got = await items();
      const video = got.find(
        (i) => i.kind === 'recording_video' && JSON.stringify(i).includes(meeting.recording_files[0].id),
      );
      const transcript = got.find(
        (i) => i.kind === 'transcript' && JSON.stringify(i).includes(meeting.recording_files[1]?.id ?? '§'),
      );
      return video && transcript ? { video, transcript } : undefined;
    });
    expect(listed.video.custodian).toBe(selected[0]);
    const eventRuns = (await runs()).filter((r) => r.trigger === 'event');
    expect(eventRuns.length).toBeGreaterThanOrEqual(1);
    for (const r of eventRuns) expect(r.custodians).toEqual([selected[0]]);
    // never a full run
    expect((await runs()).filter((r) => r.trigger !== 'event')).toHaveLength(fullRunsBefore);
    expect(
      sandbox.webhooks.attempts.filter((a) => a.event.startsWith('recording.')).every((a) => a.status === 204),
    ).toBe(true);
  });

  it('collects nothing for a user the filters do not select', async () => {
    const runsBefore = (await runs()).length;
    const itemsBefore = (await items()).length;
    await sandbox.webhooks.addRecording(unselected);
    const row = await until('the event to be routed', async () =>
      (await inbox()).find((r) => r.status === 'done' && r.body.includes(unselected)),
    );
    expect(row.outcome).toBe('no collection selects it');
    await new Promise((r) => setTimeout(r, 1200));
    expect(await runs()).toHaveLength(runsBefore);
    expect(await items()).toHaveLength(itemsBefore);
  });

  it('stores a duplicated delivery once and never stores an item twice', async () => {
    sandbox.webhooks.faults.duplicate = true;
    sandbox.webhooks.faults.duplicateVariant = true;
    try {
      const message = await sandbox.webhooks.addChatMessage({
        from: selected[1],
        to: selected[0],
        text: 'delete this later',
      });
      await until('the chat message to be listed', async () => (await items()).find((i) => i.source_id === message.id));
      const rows = (await inbox()).filter((r) => r.body.includes(message.id));
      expect(rows).toHaveLength(1);
      expect(rows[0].deliveries).toBe(2);
      const got = await items();
      const keys = got.map((i) => `${i.kind}/${i.source_id}`);
      expect(new Set(keys).size).toBe(keys.length);
    } finally {
      sandbox.webhooks.faults.duplicate = false;
      sandbox.webhooks.faults.duplicateVariant = false;
    }
  });

  it('refuses deliveries with a bad signature: Zoom retries them later', async () => {
    sandbox.webhooks.faults.badSignature = true;
    try {
      await sandbox.webhooks.addChatMessage({ from: selected[0], to: selected[1], text: 'forged' });
    } finally {
      sandbox.webhooks.faults.badSignature = false;
    }
    expect(sandbox.webhooks.attempts.at(-1)!.status).toBe(401);
  });
});
