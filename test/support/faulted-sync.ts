// A `conf` and an `edrive` collection synced in one process (or two runtimes on one database) against simulators
// that fail the way real providers do (sandbox/fault-rates.ts), and the check of what they collected against the
// simulators' own listings. The reproduction test of issue 19 and `npm run bench -- soak` both drive it.
import crypto from 'node:crypto';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { FaultDice, type FaultRates } from '../../sandbox/fault-rates.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import { expectedItems, keyOf } from '../connectors/zoom-harness.ts';
import { jsonOf, newCollection, pairFlow, startTestApp, type Json, type OpenedDatabase, type TestApp } from './app.ts';
import { testDatabases, type TestDatabase } from './databases.ts';
import { microsoftEnv } from './sandbox-env.ts';

/** The rates: 10 % 500/503 with Retry-After, 5 % 429, 2 % resets, 1 % download bodies cut short. */
export const PROVIDER_FAULT_RATES = { serverErrors: 0.1, tooMany: 0.05, resets: 0.02, cutBodies: 0.01 } as const;

const CB = 'https://client.example/faulted';
const ALL = { all_selected: true, selected: [], excluded: [] };
const CONF_FILTERS: ConfFilters = {
  account_owners: ALL,
  content_selections: ALL,
  chats: { all_selected: true, selected: [], excluded: [] },
};
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

export interface FaultedSyncOptions {
  database?: TestDatabase;
  /** More runtimes (worker processes) on the same database; default 1. */
  runtimes?: number;
  env?: Record<string, string>;
  seed?: number;
  zoom?: Parameters<typeof startZoomSandbox>[0];
  ms?: Parameters<typeof startMicrosoftSandbox>[0];
}

export interface Outcome {
  conf: Json;
  edrive: Json;
}

export interface FaultedSync {
  zoom: ZoomSandbox;
  ms: MicrosoftSandbox;
  apps: TestApp[];
  token: string;
  conf: string;
  edrive: string;
  /** Turns the faults on (each simulator with its own die from `rates.seed`), or off with null. */
  faults(rates: FaultRates | null): void;
  /** Queues both runs as the issue did (POST start for conf, PATCH pending for edrive) and waits for both to end. */
  syncBoth(timeoutMs: number): Promise<Outcome>;
  /** Items the simulators hold that the collections lack, and items whose SHA-256 differs from the simulator's. */
  check(): Promise<{ missing: string[]; corrupt: string[] }>;
  close(): Promise<void>;
}

export async function startFaultedSync(opts: FaultedSyncOptions = {}): Promise<FaultedSync> {
  const seed = opts.seed ?? 19;
  const [zoom, ms] = await Promise.all([
    startZoomSandbox({
      seed,
      users: 4,
      meetingsPerUser: 2,
      channels: 2,
      messagesPerChannel: 3,
      messagesPerChat: 2,
      fileSize: 64 * 1024,
      ...opts.zoom,
    }),
    startMicrosoftSandbox({
      seed: seed + 1,
      users: 2,
      usersWithoutDrive: 0,
      deltaPageSize: 10,
      fileSize: 32 * 1024,
      ...opts.ms,
    }),
  ]);
  const env = {
    ZOOM_CLIENT_ID: zoom.clientId,
    ZOOM_CLIENT_SECRET: zoom.clientSecret,
    ZOOM_OAUTH_URL: zoom.oauthUrl,
    ZOOM_API_URL: zoom.apiUrl,
    ...microsoftEnv(ms),
    RATE_LIMIT_DEFAULT_PER_MINUTE: '1000000',
    ...opts.env,
  };
  const apps: TestApp[] = [];
  const shared: OpenedDatabase = await (opts.database ?? testDatabases[0]).open();
  try {
    for (let i = 0; i < (opts.runtimes ?? 1); i++) apps.push(await startTestApp({ shared, env }));
  } catch (error) {
    await Promise.all([...apps.map((a) => a.close()), zoom.close(), ms.close()]);
    await shared.close();
    throw error;
  }
  const t = apps[0];
  const token = await t.token('faulted', [CB]);
  const call = (method: string, path: string, json?: unknown) =>
    t.call(token, method, path, json === undefined ? {} : { json });
  const conf = await newCollection(t.call, token, 'conf', 'faulted-conf');
  await pairFlow(t.call, token, conf, { type: 'conf', redirectTo: CB, state: 'c', callbackOrigin: t.url });
  const edrive = await newCollection(t.call, token, 'edrive', 'faulted-edrive');
  await pairFlow(t.call, token, edrive, { type: 'edrive', redirectTo: CB, state: 'e', callbackOrigin: t.url });
  const driveFilters = Object.fromEntries(
    ms.tenant.users.map((u) => [u.id, { ...ALL, filter_type: 'user_folders', filter_name: u.id }]),
  );
  expect204(await call('PATCH', `/v1/collections/${conf}`, { sync_filters: CONF_FILTERS, type_sync: 'auto' }));
  expect204(await call('PATCH', `/v1/collections/${edrive}`, { sync_filters: driveFilters, type_sync: 'auto' }));

  const ENDED = ['synced', 'failed', 'error'];
  const waitEnded = async (id: string, deadline: number): Promise<Json> => {
    for (;;) {
      const c = await jsonOf(await call('GET', `/v1/collections/${id}`), 200);
      if (ENDED.includes(c.sync_status)) return c;
      if (Date.now() > deadline) {
        const runs = await jsonOf(await call('GET', `/v1/collections/${id}/runs`), 200);
        const detail = runs.runs?.[0]
          ? await jsonOf(await call('GET', `/v1/collections/${id}/runs/${runs.runs[0].run_id}`), 200)
          : undefined;
        const tail =
          c.type === 'conf'
            ? zoom.requests.slice(-8).map((r) => `${r.listener} ${r.method} ${r.path.split('?')[0]}`)
            : ms.requests.slice(-8).map((r) => `${r.host} ${r.method} ${r.path} ${r.status}`);
        throw new Error(
          `collection ${id} (${c.type}) still "${c.sync_status}": ${JSON.stringify(detail ?? c).slice(0, 3000)}; last requests: ${tail.join(' | ')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  return {
    zoom,
    ms,
    apps,
    token,
    conf,
    edrive,
    faults(rates) {
      zoom.faults.dice = rates && new FaultDice(rates);
      ms.faults.dice = rates && new FaultDice({ ...rates, seed: rates.seed + 1 });
    },
    async syncBoth(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const started = await call('POST', `/v1/collections/${conf}/start`);
      if (started.status !== 200) throw new Error(`start answered ${started.status}: ${await started.text()}`);
      expect204(await call('PATCH', `/v1/collections/${edrive}`, { sync_status: 'pending' }));
      const [c, e] = await Promise.all([waitEnded(conf, deadline), waitEnded(edrive, deadline)]);
      return { conf: c, edrive: e };
    },
    async check() {
      const want = new Map<string, string | null>();
      for (const [k, v] of expectedItems(zoom, CONF_FILTERS).items) want.set(`conf ${k}`, v);
      for (const user of ms.tenant.users) {
        const [root, ...rest] = ms.listItems(user.id);
        if (!root) continue;
        for (const i of rest)
          want.set(`edrive ${keyOf(i.kind, i.id)}`, i.kind === 'file' ? sha256(ms.contentOf(user.id, i.id)) : null);
      }
      const got = new Map<string, string | null>();
      for (const [type, id] of [
        ['conf', conf],
        ['edrive', edrive],
      ] as const) {
        for (const item of await t.items(token, id))
          got.set(`${type} ${keyOf(item.kind, item.source_id)}`, item.sha256);
      }
      const missing = [...want.keys()].filter((k) => !got.has(k));
      // a record-backed Zoom item ('record': its content is the record Zoom returned) must have a blob; files their bytes
      const differs = (want: string, have: string | null | undefined) =>
        want === 'record' ? !/^[0-9a-f]{64}$/.test(have ?? '') : have !== want;
      const corrupt = [...want].filter(([k, v]) => got.has(k) && v !== null && differs(v, got.get(k))).map(([k]) => k);
      return { missing, corrupt };
    },
    async close() {
      for (const app of apps.reverse()) await app.close();
      await shared.close();
      await Promise.all([zoom.close(), ms.close()]);
    },
  };
}

function expect204(res: Response): void {
  if (res.status !== 204) throw new Error(`expected 204, got ${res.status}`);
}
