import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { loadConfig } from '../src/config.ts';
import { startZoomSandbox } from '../sandbox/zoom/index.ts';
import { startBenchApi } from './flow.ts';

const REDIRECT = 'http://127.0.0.1:9/bench-callback';

export async function service(env: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-sync-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CUSTODY_SECRET_KEY: 's'.repeat(40),
    PORT: '0',
    ...env,
  });
  const { runtime, api } = await startBenchApi(config, { workers: true, redirect: REDIRECT });
  return {
    api,
    async close() {
      await runtime.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function rssSampler() {
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  return () => {
    clearInterval(timer);
    return (peak - start) / 1024 / 1024;
  };
}

/** A whole Zoom tenant through the public API: items/s and MiB/s of a full first sync, then an incremental re-run. */
async function benchZoom(scale: number): Promise<Record<string, string>> {
  const zoom = await startZoomSandbox({
    users: Math.round(12 * scale),
    meetingsPerUser: 6,
    fileSize: 256 * 1024,
    channels: 4,
    messagesPerChannel: 20,
    messagesPerChat: 10,
  });
  const svc = await service({
    ZOOM_CLIENT_ID: zoom.clientId,
    ZOOM_CLIENT_SECRET: zoom.clientSecret,
    ZOOM_OAUTH_URL: zoom.oauthUrl,
    ZOOM_API_URL: zoom.apiUrl,
    MS_CLIENT_ID: 'unused',
  });
  try {
    const col = await svc.api.collection('conf');
    await svc.api.pair(col, 'conf', REDIRECT);
    const all = { all_selected: true, selected: [], excluded: [] };
    await svc.api.call('PATCH', `/v1/collections/${col}`, {
      type_sync: 'arch',
      sync_filters: { account_owners: all, content_selections: all, chats: all },
    });
    const t0 = performance.now();
    await svc.api.call('POST', `/v1/collections/${col}/start`);
    const done = await svc.api.waitFor(col, ['synced', 'failed', 'error'], 600_000);
    const first = (performance.now() - t0) / 1000;
    const c = done.latest_run.counters;
    const t1 = performance.now();
    await svc.api.call('POST', `/v1/collections/${col}/start`);
    const again = await svc.api.waitFor(col, ['synced', 'failed', 'error'], 600_000);
    const second = (performance.now() - t1) / 1000;
    return {
      'sync zoom: first run': `${done.sync_status}; ${c.collected} items, ${(c.bytes / 1048576).toFixed(1)} MiB in ${first.toFixed(2)} s = ${(c.collected / first).toFixed(0)} items/s`,
      'sync zoom: incremental re-run': `${again.sync_status}; ${again.latest_run.counters.collected} collected, ${again.latest_run.counters.unchanged} unchanged in ${second.toFixed(2)} s`,
    };
  } finally {
    await svc.close();
    await zoom.close();
  }
}

/** One large OneDrive file streamed through the engine: MiB/s and how much the service's RSS grows. */
async function benchBigFile(mb: number): Promise<Record<string, string>> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'ms-sandbox-child.ts'), String(mb)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
    });
    const ms = JSON.parse(line) as {
      loginUrl: string;
      graphUrl: string;
      clientId: string;
      clientSecret: string;
      userId: string;
    };
    const svc = await service({
      MS_CLIENT_ID: ms.clientId,
      MS_CLIENT_SECRET: ms.clientSecret,
      MS_LOGIN_URL: ms.loginUrl,
      MS_GRAPH_URL: ms.graphUrl,
      ZOOM_CLIENT_ID: 'unused',
    });
    try {
      const col = await svc.api.collection('edrive');
      await svc.api.pair(col, 'edrive', REDIRECT);
      await svc.api.call('PATCH', `/v1/collections/${col}`, {
        sync_filters: {
          [ms.userId]: {
            all_selected: true,
            selected: [],
            excluded: [],
            filter_type: 'user_folders',
            filter_name: 'User drive',
          },
        },
      });
      const stop = rssSampler();
      const t0 = performance.now();
      await svc.api.call('POST', `/v1/collections/${col}/start`);
      const done = await svc.api.waitFor(col, ['synced', 'failed', 'error'], 900_000);
      const seconds = (performance.now() - t0) / 1000;
      const growth = stop();
      const items = await svc.api.call('GET', `/v1/collections/${col}/items?kind=file&limit=200`);
      const big = items.body.items.find((i: { name: string }) => i.name === 'big-evidence.bin');
      return {
        'sync onedrive: large file': `${done.sync_status}; ${mb} MiB file in ${seconds.toFixed(2)} s = ${(mb / seconds).toFixed(0)} MiB/s, quickXorHash verified: ${big?.hash_verified}`,
        'sync onedrive: service RSS growth during the sync': `${growth.toFixed(1)} MiB`,
      };
    } finally {
      await svc.close();
    }
  } finally {
    child.kill('SIGTERM');
  }
}

export async function benchSync(scale: number): Promise<Record<string, string>> {
  return {
    ...(await benchZoom(scale)),
    ...(await benchBigFile(Math.round(Number(process.env.BENCH_BIG_FILE_MB ?? 1024) * scale))),
  };
}
