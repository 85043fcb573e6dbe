import { performance } from 'node:perf_hooks';
import { startMicrosoftSandbox } from '../sandbox/microsoft/index.ts';
import { startZoomSandbox } from '../sandbox/zoom/index.ts';
import { baseline } from '../src/sync/execution/read-ahead.ts';
import { service } from './sync.ts';

/**
 * `npm run bench -- allowance`: how much of a provider's allowance a whole `conf` run uses, on the default
 * configuration (embedded store, in-process workers). A Zoom account of 24 owners limited to LIMIT requests per
 * second across every API (a sliding one-second window, 429 beyond it) is synced from scratch; printed: API
 * requests, their average rate while the run talks to Zoom as a share of the limit, the busiest second, and the
 * share answered 429.
 */
/** Zoom answers every API request this late: a provider across the internet, not on loopback. */
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 80);

/**
 * Each case runs twice in one bench, side by side: `before`, each unit taking its listing one event at a time with
 * the previous defaults (BEFORE_ENV), and `now`, the default configuration. ALLOWANCE_MODES=now (or before) runs one.
 */
const MODES = (process.env.ALLOWANCE_MODES ?? 'before,now').split(',') as Array<'before' | 'now'>;
/** The defaults before the pipeline (issue 25). */
const BEFORE_ENV: Record<string, string> = { WORKER_CONCURRENCY: '4', ZOOM_CONCURRENCY: '8', MS_CONCURRENCY: '4' };

export async function benchAllowance(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const each = async (label: string, run: (env: Record<string, string>) => Promise<string>) => {
    for (const mode of MODES) {
      baseline.sequential = mode === 'before';
      try {
        out[`${label} [${mode}]`] = await run(mode === 'before' ? { ...BEFORE_ENV, ...extraEnv() } : extraEnv());
        console.error(`${label} [${mode}]: ${out[`${label} [${mode}]`]}`);
      } finally {
        baseline.sequential = false;
      }
    }
  };
  for (const limit of numbers(process.env.ALLOWANCE_LIMITS ?? '20,60'))
    await each(`conf 24 owners, account limit ${limit}/s`, (env) => confAgainst(limit, env));
  for (const perMinute of numbers(process.env.ALLOWANCE_RU_PER_MINUTE ?? '600'))
    await each(`edrive, ${perMinute} resource units a minute`, (env) => edriveAgainst(perMinute, env));
  return out;
}

const numbers = (list: string): number[] =>
  list
    .split(',')
    .filter((v) => v.trim() !== '')
    .map(Number);

const extraEnv = (): Record<string, string> => JSON.parse(process.env.ALLOWANCE_ENV ?? '{}') as Record<string, string>;

/** Samples a gauge every 20 ms: its mean and peak while the run is under way. */
function sampler(read: () => number): () => { mean: number; peak: number } {
  let sum = 0;
  let n = 0;
  let peak = 0;
  const timer = setInterval(() => {
    const v = read();
    sum += v;
    n += 1;
    peak = Math.max(peak, v);
  }, 20);
  return () => {
    clearInterval(timer);
    return { mean: n ? sum / n : 0, peak };
  };
}

async function confAgainst(limit: number, extraEnv: Record<string, string> = {}): Promise<string> {
  const zoom = await startZoomSandbox({
    seed: 25,
    users: 24,
    meetingsPerUser: 8,
    fileSize: 4096,
    channels: 4,
    messagesPerChannel: 40,
    messagesPerChat: 20,
    rateLimits: { total: limit },
    latencyMs: LATENCY_MS,
  });
  const svc = await service({
    ZOOM_CLIENT_ID: zoom.clientId,
    ZOOM_CLIENT_SECRET: zoom.clientSecret,
    ZOOM_OAUTH_URL: zoom.oauthUrl,
    ZOOM_API_URL: zoom.apiUrl,
    MS_CLIENT_ID: 'unused',
    ...extraEnv,
  });
  try {
    const id = await svc.api.collection('conf');
    await svc.api.pair(id, 'conf', 'http://127.0.0.1:9/bench-callback');
    const all = { all_selected: true, selected: [], excluded: [] };
    await svc.api.call('PATCH', `/v1/collections/${id}`, {
      type_sync: 'one',
      sync_filters: { account_owners: all, content_selections: all, chats: all },
    });
    const from = zoom.requests.length;
    const refusedBefore = zoom.rateLimited();
    const t0 = Date.now();
    const inFlight = sampler(() => zoom.inFlight.current);
    const elu = performance.eventLoopUtilization();
    await svc.api.call('POST', `/v1/collections/${id}/start`);
    const col = await svc.api.waitFor(id, ['synced', 'failed'], 15 * 60_000);
    const seconds = (Date.now() - t0) / 1000;
    const flight = inFlight();
    const busy = performance.eventLoopUtilization(elu).utilization;
    const api = zoom.requests.slice(from).filter((r) => r.listener === 'main' && r.path.startsWith('/v2/'));
    const refused = zoom.rateLimited() - refusedBefore;
    const perSecond = new Map<number, number>();
    for (const r of api) perSecond.set(Math.floor(r.at / 1000), (perSecond.get(Math.floor(r.at / 1000)) ?? 0) + 1);
    if (process.env.ALLOWANCE_SERIES) {
      const first = Math.floor(api[0].at / 1000);
      console.log([...perSecond].map(([sec, n]) => `${sec - first}:${n}`).join(' '));
    }
    const active = (api[api.length - 1].at - api[0].at) / 1000;
    const rate = api.length / active;
    const run = col.latest_run as { status?: string; counters?: Record<string, number> } | undefined;
    return (
      `${col.sync_status}/${run?.status} in ${seconds.toFixed(1)} s, ${run?.counters?.collected ?? '?'} items; ` +
      `${api.length} API requests at ${rate.toFixed(1)}/s over ${active.toFixed(1)} s = ${((rate / limit) * 100).toFixed(0)} % of the limit, ` +
      `busiest second ${Math.max(...perSecond.values())}, ${refused} answered 429 (${((refused / api.length) * 100).toFixed(2)} %); ` +
      `in flight at Zoom ${flight.mean.toFixed(1)} on average, ${flight.peak} at most; event loop ${(busy * 100).toFixed(0)} % busy`
    );
  } finally {
    await svc.close();
    await zoom.close();
  }
}

/**
 * An `edrive` collection of 8 users with small files against SharePoint's sliding one-minute resource-unit window
 * (`perMinute`): the units the run spends per second while it talks to Graph, as a share of perMinute / 60.
 */
async function edriveAgainst(perMinute: number, extraEnv: Record<string, string>): Promise<string> {
  const ms = await startMicrosoftSandbox({
    seed: 25,
    users: 8,
    usersWithoutDrive: 0,
    folderDepth: 2,
    foldersPerLevel: 3,
    filesPerFolder: 8,
    fileSize: 512,
    resourceUnitsPerMinute: perMinute,
  });
  const svc = await service({
    MS_CLIENT_ID: ms.clientId,
    MS_CLIENT_SECRET: ms.clientSecret,
    MS_LOGIN_URL: ms.loginUrl,
    MS_GRAPH_URL: ms.graphUrl,
    ZOOM_CLIENT_ID: 'unused',
    ...extraEnv,
  });
  try {
    const id = await svc.api.collection('edrive');
    await svc.api.pair(id, 'edrive', 'http://127.0.0.1:9/bench-callback');
    const user = {
      all_selected: true,
      selected: [],
      excluded: [],
      filter_type: 'user_folders',
      filter_name: 'User drive',
    };
    await svc.api.call('PATCH', `/v1/collections/${id}`, {
      type_sync: 'one',
      sync_filters: Object.fromEntries(ms.tenant.users.map((u) => [u.id, user])),
    });
    const before = ms.resourceUnits();
    const from = ms.requests.length;
    const t0 = Date.now();
    await svc.api.call('POST', `/v1/collections/${id}/start`);
    const col = await svc.api.waitFor(id, ['synced', 'failed'], 30 * 60_000);
    const seconds = (Date.now() - t0) / 1000;
    const after = ms.resourceUnits();
    const units = after.charged - before.charged;
    const refused = after.refused - before.refused;
    const requests = ms.requests.length - from;
    const perSecond = units / seconds;
    const run = col.latest_run as { status?: string; counters?: Record<string, number> } | undefined;
    return (
      `${col.sync_status}/${run?.status} in ${seconds.toFixed(1)} s, ${run?.counters?.collected ?? '?'} items; ` +
      `${units} units in ${requests} requests at ${perSecond.toFixed(1)}/s = ${((perSecond / (perMinute / 60)) * 100).toFixed(0)} % of the limit, ` +
      `${refused} answered 429 (${((refused / requests) * 100).toFixed(2)} %)`
    );
  } finally {
    await svc.close();
    await ms.close();
  }
}
