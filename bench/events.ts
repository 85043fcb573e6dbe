import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMicrosoftSandbox } from '../sandbox/microsoft/index.ts';
import { startZoomSandbox } from '../sandbox/zoom/index.ts';
import { loadConfig } from '../src/config.ts';
import { startBenchApi } from './flow.ts';

const REDIRECT = 'http://127.0.0.1:9/bench-callback';
const SECRET = 'bench-zoom-webhook-secret';

/**
 * Change at the (simulated) source → provider event → targeted run → item listed by GET …/items, with the default
 * configuration (EVENT_COALESCE_SECONDS=3, 1 s inbox poll). Half the changes are delivered twice (duplicates,
 * with differing download tokens for Zoom); afterwards every item must be stored once.
 */
export async function benchEvents(scale: number): Promise<Record<string, string>> {
  const changes = Math.max(2, Math.round(8 * scale));
  const zoom = await startZoomSandbox({
    users: 4,
    meetingsPerUser: 2,
    channels: 2,
    messagesPerChannel: 4,
    messagesPerChat: 4,
  });
  const ms = await startMicrosoftSandbox({ users: 3, usersWithoutDrive: 0, folderDepth: 1, filesPerFolder: 2 });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-events-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CUSTODY_SECRET_KEY: 's'.repeat(40),
    PORT: '0',
    ZOOM_WEBHOOK_SECRET_TOKEN: SECRET,
    ZOOM_CLIENT_ID: zoom.clientId,
    ZOOM_CLIENT_SECRET: zoom.clientSecret,
    ZOOM_OAUTH_URL: zoom.oauthUrl,
    ZOOM_API_URL: zoom.apiUrl,
    MS_CLIENT_ID: ms.clientId,
    MS_CLIENT_SECRET: ms.clientSecret,
    MS_LOGIN_URL: ms.loginUrl,
    MS_GRAPH_URL: ms.graphUrl,
  });
  const { runtime, base, api } = await startBenchApi(config, { workers: true, redirect: REDIRECT });
  try {
    const all = { all_selected: true, selected: [], excluded: [] };
    const conf = await api.collection('conf');
    await api.pair(conf, 'conf', REDIRECT);
    await api.call('PATCH', `/v1/collections/${conf}`, {
      type_sync: 'auto',
      sync_status: 'pending',
      sync_filters: { account_owners: all, content_selections: all, chats: all },
    });
    const drives = await api.collection('edrive');
    await api.pair(drives, 'edrive', REDIRECT);
    const users = ms.tenant.users.map((u) => u.id);
    const folders = Object.fromEntries(users.map((u) => [u, { ...all, filter_type: 'user_folders', filter_name: u }]));
    await api.call('PATCH', `/v1/collections/${drives}`, {
      type_sync: 'auto',
      sync_status: 'pending',
      sync_filters: folders,
    });
    await api.waitFor(conf, ['synced'], 120_000);
    await api.waitFor(drives, ['synced'], 120_000);
    if (!(await zoom.webhooks.subscribe({ url: `${base}/v1/webhooks/zoom`, secretToken: SECRET })))
      throw new Error('Zoom endpoint validation failed');
    // A worker's subscription pass runs every minute; the first one is run here rather than waited for.
    await runtime.events.subscriptions.tick();

    const listed = async (collectionId: string, sourceId: string) => {
      let cursor: string | null = null;
      do {
        const page: { body: { items: Array<{ source_id: string }>; cursor: string | null } } = await api.call(
          'GET',
          `/v1/collections/${collectionId}/items?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        if (page.body.items.some((i) => i.source_id === sourceId)) return true;
        cursor = page.body.cursor;
      } while (cursor);
      return false;
    };
    const delay = async (collectionId: string, change: () => Promise<string> | string) => {
      const start = performance.now();
      const sourceId = await change();
      while (!(await listed(collectionId, sourceId))) {
        if (performance.now() - start > 120_000) throw new Error(`${sourceId} not listed after 120 s`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return (performance.now() - start) / 1000;
    };

    const delays: number[] = [];
    const hosts = zoom.tenant.users.filter((u) => u.status === 'active');
    for (let i = 0; i < changes; i++) {
      const dup = i % 2 === 1;
      zoom.webhooks.faults.duplicate = dup;
      zoom.webhooks.faults.duplicateVariant = dup;
      ms.subscriptions.faults.duplicates = dup ? 2 : 0;
      const from = hosts[i % hosts.length];
      const to = hosts[(i + 1) % hosts.length];
      if (i % 2 === 0) delays.push(await delay(conf, async () => (await zoom.webhooks.addRecording(from.id)).uuid));
      else
        delays.push(
          await delay(
            conf,
            async () =>
              (await zoom.webhooks.addChatMessage({ from: from.id, to: to.email, text: `bench message ${i}` })).id,
          ),
        );
      const owner = users[i % users.length];
      const root = ms.listItems(owner)[0].id;
      delays.push(
        await delay(drives, () => ms.mutate.addFile(owner, root, `bench-${i}.txt`, Buffer.from(`change ${i}`)).id),
      );
    }

    // Settle, then check that duplicated deliveries stored nothing twice.
    await new Promise((r) => setTimeout(r, 5000));
    const stored = await runtime.ctx.db.selectFrom('items').select(['collection_id', 'kind', 'source_id']).execute();
    const keys = new Set(stored.map((r) => `${r.collection_id}/${r.kind}/${r.source_id}`));
    const inbox = await runtime.ctx.db.selectFrom('provider_events').select(['deliveries']).execute();
    const deliveries = inbox.reduce((n, r) => n + Number(r.deliveries), 0);
    const eventRuns = await runtime.ctx.db.selectFrom('runs').select('id').where('trigger', '=', 'event').execute();
    const sorted = [...delays].sort((a, b) => a - b);
    const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
    return {
      'events: changes measured': `${delays.length} (${changes} Zoom recordings/chat messages, ${changes} OneDrive files)`,
      'events: change-to-listed delay p50': `${pct(50).toFixed(2)} s`,
      'events: change-to-listed delay p95': `${pct(95).toFixed(2)} s`,
      'events: change-to-listed delay max': `${sorted.at(-1)!.toFixed(2)} s`,
      'events: deliveries received / events stored': `${deliveries} / ${inbox.length}`,
      'events: targeted runs': String(eventRuns.length),
      'events: items stored twice': String(stored.length - keys.size),
    };
  } finally {
    await runtime.close();
    await zoom.close();
    await ms.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
