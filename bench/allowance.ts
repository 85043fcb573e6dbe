import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { windowBaseline } from '../src/provider/quota-window.ts';
import { countWaits, waitGauges } from '../src/provider/wait-gauge.ts';
import { baseline } from '../src/sync/execution/read-ahead.ts';
import type { ApiClient } from './flow.ts';
import { service } from './sync.ts';

/**
 * `npm run bench -- allowance`: how much of a provider's allowance a whole run uses, on the default configuration
 * (embedded store, in-process workers). A Zoom account of 24 owners limited to LIMIT requests per second across
 * every API (a sliding one-second window, 429 beyond it) is synced from scratch, and an `edrive` tenant against a
 * resource-unit minute; printed: the share of the limit used, the requests answered 429, the run's duration.
 * The simulators run in a child process (allowance-sandbox-child.ts): a provider across the internet does not take
 * the service's event loop.
 *
 * Each case runs twice in one bench, side by side: `before`, each unit taking its listing one event at a time, the
 * budget keeping no quota window, with the defaults before issue 25 (BEFORE_ENV), and `now`, the default
 * configuration. ALLOWANCE_MODES=now runs one.
 *
 * A conf case syncs several collections of the same 24 owners on one sandbox account and one service, one after
 * the other: `first run of a credential` (nothing learned yet: the rate starts slow), then, as ALLOWANCE_LATER lists
 * them (default both), `a later run: the learned rate kept` (a second collection on the same wallet, whose budget
 * key `conf:<wallet id>` the first run learned under) and `a new wallet on the same Zoom account` (another key:
 * what is learned is per wallet, not per provider account).
 *
 * ALLOWANCE_SERIES=1 prints each conf run's requests by second and quarter second; ALLOWANCE_LOG=<file> appends every
 * API request Zoom received (arrival in epoch ms, path) under a `# <collection id>` line, to see what each owner's
 * unit asked for when.
 */
/** Zoom answers every API request this late: a provider across the internet, not on loopback. */
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 80);
const MODES = (process.env.ALLOWANCE_MODES ?? 'before,now').split(',') as Array<'before' | 'now'>;
/** The defaults before the pipeline (issue 25). */
const BEFORE_ENV: Record<string, string> = { WORKER_CONCURRENCY: '4', ZOOM_CONCURRENCY: '8', MS_CONCURRENCY: '4' };

export async function benchAllowance(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const each = async (
    label: string,
    run: (env: Record<string, string>) => Promise<string | Record<string, string>>,
  ) => {
    for (const mode of MODES) {
      baseline.sequential = mode === 'before';
      windowBaseline.ignored = mode === 'before';
      try {
        const figures = await run(mode === 'before' ? { ...BEFORE_ENV, ...extraEnv() } : extraEnv());
        const lines = typeof figures === 'string' ? { '': figures } : figures;
        for (const [which, line] of Object.entries(lines)) {
          const name = `${label}${which && `, ${which}`} [${mode}]`;
          out[name] = line;
          console.error(`${name}: ${line}`);
        }
      } finally {
        baseline.sequential = false;
        windowBaseline.ignored = false;
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

interface Child {
  info: Record<string, unknown>;
  ask(line: 'mark' | 'stats'): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function sandboxChild(kind: 'zoom' | 'ms', options: object): Promise<Child> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'allowance-sandbox-child.ts'), kind, JSON.stringify(options)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = readline.createInterface({ input: child.stdout! });
  const waiting: Array<(line: string) => void> = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      waiting.push((line) => resolve(JSON.parse(line) as Record<string, unknown>));
      child.once('exit', (code) => reject(new Error(`the sandbox exited ${code}`)));
    });
  const info = await next();
  return {
    info,
    ask: (line) => {
      const answer = next();
      child.stdin!.write(`${line}\n`);
      return answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The later runs a conf case adds after the first (ALLOWANCE_LATER). */
const LATER = (process.env.ALLOWANCE_LATER ?? 'warm,new-wallet').split(',').filter((v) => v !== '');

/**
 * ALLOWANCE_HISTORY=n gives each of the 24 owners n times the meetings and messages (default 1): a run n times as
 * long, over which the fixed cost of a first run's start (the plan, the slow start) weighs less.
 */
const HISTORY = Number(process.env.ALLOWANCE_HISTORY || 1);

async function confAgainst(limit: number, extraEnv: Record<string, string>): Promise<Record<string, string>> {
  const zoom = await sandboxChild('zoom', {
    seed: 25,
    users: 24,
    meetingsPerUser: 8 * HISTORY,
    fileSize: 4096,
    channels: 4,
    messagesPerChannel: 40 * HISTORY,
    messagesPerChat: 20 * HISTORY,
    rateLimits: { total: limit },
    latencyMs: LATENCY_MS,
  });
  const z = zoom.info as { clientId: string; clientSecret: string; oauthUrl: string; apiUrl: string };
  const svc = await service({
    ZOOM_CLIENT_ID: z.clientId,
    ZOOM_CLIENT_SECRET: z.clientSecret,
    ZOOM_OAUTH_URL: z.oauthUrl,
    ZOOM_API_URL: z.apiUrl,
    MS_CLIENT_ID: 'unused',
    ...extraEnv,
  });
  try {
    const out: Record<string, string> = {};
    const first = await svc.api.collection('conf');
    out['first run of a credential'] = await syncConf(svc.api, zoom, limit, first);
    const { body } = await svc.api.call<{ credential_id: string }>('GET', `/v1/collections/${first}`);
    if (LATER.includes('warm')) {
      const second = await collectionOnWallet(svc.api, body.credential_id);
      out['a later run: the learned rate kept (second collection, same wallet)'] = await syncConf(
        svc.api,
        zoom,
        limit,
        second,
      );
    }
    if (LATER.includes('new-wallet')) {
      const other = await svc.api.collection('conf');
      out['a new wallet paired to the same Zoom account'] = await syncConf(svc.api, zoom, limit, other);
    }
    return out;
  } finally {
    await svc.close();
    await zoom.close();
  }
}

/** A new conf collection (in a new workspace) bound to an existing wallet. */
async function collectionOnWallet(api: ApiClient, walletId: string): Promise<string> {
  const ws = await api.call<{ onna_id: string }>('POST', '/v1/workspaces', { name: 'bench', description: 'bench' });
  const col = await api.call<{ onna_id: string }>('POST', '/v1/collections', {
    name: 'conf',
    onna_parent_id: ws.body.onna_id,
    type: 'conf',
    credential_id: walletId,
  });
  return col.body.onna_id;
}

/** Pairs collection `id` with the sandbox account, syncs all of it from scratch, and prints what Zoom counted. */
async function syncConf(api: ApiClient, zoom: Child, limit: number, id: string): Promise<string> {
  await api.pair(id, 'conf', 'http://127.0.0.1:9/bench-callback');
  const all = { all_selected: true, selected: [], excluded: [] };
  await api.call('PATCH', `/v1/collections/${id}`, {
    type_sync: 'one',
    sync_filters: { account_owners: all, content_selections: all, chats: all },
  });
  await zoom.ask('mark');
  // Nothing is under way yet: the gauges count from here (they are off by default).
  countWaits(true);
  try {
    const timeline = sampleTimeline();
    const elu = performance.eventLoopUtilization();
    const t0 = Date.now();
    await api.call('POST', `/v1/collections/${id}/start`);
    const col = await api.waitFor(id, ['synced', 'failed'], 15 * 60_000);
    const seconds = (Date.now() - t0) / 1000;
    const busy = performance.eventLoopUtilization(elu).utilization;
    const waits = waitFigures();
    const perSecondWaits = timeline.stop();
    const stats = (await zoom.ask('stats')) as {
      routes: Record<string, number>;
      apiAt: number[];
      refused: number;
      refusedAt: number[];
      inFlightMean: number;
      inFlightPeak: number;
      log?: Array<[number, string]>;
    };
    if (stats.log)
      appendFileSync(
        process.env.ALLOWANCE_LOG!,
        [`# ${id}`, ...stats.log.map(([at, p]) => `${at} ${p}`), ''].join('\n'),
      );
    const api0 = stats.apiAt;
    const perSecond = new Map<number, number>();
    for (const at of api0) perSecond.set(Math.floor(at / 1000), (perSecond.get(Math.floor(at / 1000)) ?? 0) + 1);
    if (process.env.ALLOWANCE_SERIES) {
      const first = Math.floor(api0[0] / 1000);
      console.log(`collection ${id}: requests by second`);
      console.log([...perSecond].map(([sec, n]) => `${sec - first}:${n}`).join(' '));
      // The start of a run to the quarter second: planning, then the slow start.
      const quarter = new Map<number, number>();
      for (const q of api0.map((at) => Math.floor((at - api0[0]) / 250))) quarter.set(q, (quarter.get(q) ?? 0) + 1);
      console.log(`by quarter second from the first request: ${[...quarter].map(([q, n]) => `${q}:${n}`).join(' ')}`);
      console.log(`budget idle %, units collecting, by second: ${perSecondWaits}`);
      console.log(`429s at second ${stats.refusedAt.map((at) => Math.floor(at / 1000) - first).join(' ')}`);
      console.log(
        Object.entries(stats.routes)
          .sort((a, b) => b[1] - a[1])
          .map(([route, n]) => `${route} ${n}`)
          .join(', '),
      );
    }
    const active = (api0[api0.length - 1] - api0[0]) / 1000;
    const rate = api0.length / active;
    const run = col.latest_run as { run_id: string; status?: string; counters?: Record<string, number> } | undefined;
    const detail = run
      ? (
          await api.call<{ provider_budget?: { rate_per_second?: number } }>(
            'GET',
            `/v1/collections/${id}/runs/${run.run_id}`,
          )
        ).body
      : undefined;
    return (
      `${col.sync_status}/${run?.status} in ${seconds.toFixed(1)} s, ${run?.counters?.collected ?? '?'} items; ` +
      `${api0.length} API requests at ${rate.toFixed(1)}/s over ${active.toFixed(1)} s = ${((rate / limit) * 100).toFixed(0)} % of the limit, ` +
      `first second ${perSecond.get(Math.floor(api0[0] / 1000)) ?? 0}, busiest second ${Math.max(...perSecond.values())}, ${stats.refused} answered 429 (${((stats.refused / api0.length) * 100).toFixed(2)} %; ${refusedOnArrival(api0, limit)} if counted on arrival); ` +
      `learned rate at the end ${detail?.provider_budget?.rate_per_second?.toFixed(1) ?? '?'}/s; ` +
      `in flight at Zoom ${stats.inFlightMean.toFixed(1)} on average, ${stats.inFlightPeak} at most; service event loop ${(busy * 100).toFixed(0)} % busy; ` +
      waits
    );
  } finally {
    countWaits(false);
  }
}

/**
 * The requests a sliding-second limiter would refuse if it counted them as they arrived (the sandbox's log, before
 * its latency): what the service's own bunching explains. The rest of the 429s come from the provider's timing.
 */
function refusedOnArrival(at: number[], limit: number): number {
  const admitted: number[] = [];
  let refused = 0;
  for (let i = 0, head = 0; i < at.length; i++) {
    while (head < admitted.length && admitted[head] <= at[i] - 1000) head++;
    if (admitted.length - head >= limit) refused++;
    else admitted.push(at[i]);
  }
  return refused;
}

/** Samples the gauges every 20 ms: per second of the run, the budget's idle share and the units collecting. */
function sampleTimeline(): { stop(): string } {
  const seconds: Array<{ idle: number; units: number; n: number }> = [];
  const t0 = Date.now();
  const timer = setInterval(() => {
    const s = (seconds[Math.floor((Date.now() - t0) / 1000)] ??= { idle: 0, units: 0, n: 0 });
    s.idle += waitGauges.budgetWaiting.current === 0 ? 1 : 0;
    s.units += waitGauges.pipelines.current;
    s.n += 1;
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return seconds
        .map((s, i) => (s ? `${i}:${Math.round((s.idle / s.n) * 100)}%/${(s.units / s.n).toFixed(1)}` : `${i}:-`))
        .join(' ');
    },
  };
}

/**
 * Where the run waited, from the process's gauges (src/provider/wait-gauge.ts): the budget's idle share is the
 * time no request waited for the budget (the budget had room and nobody asked: the run was bound by itself).
 */
function waitFigures(): string {
  const waiting = waitGauges.budgetWaiting.read();
  const flight = waitGauges.inFlight.read();
  const blocked = waitGauges.listingBlocked.read();
  const starved = waitGauges.writerStarved.read();
  return (
    `budget idle ${(waiting.zeroShare * 100).toFixed(0)} % of the time (${waiting.mean.toFixed(2)} requests waiting on average), ` +
    `${flight.mean.toFixed(1)} requests holding a budget slot on average; ` +
    `units whose writer waits on the listing ${starved.mean.toFixed(1)} on average, whose listing waits on the writer ${blocked.mean.toFixed(1)}`
  );
}

/**
 * An `edrive` collection of 8 users with small files against SharePoint's sliding one-minute resource-unit window
 * (`perMinute`): the units the run spends per second while it talks to Graph, as a share of perMinute / 60.
 */
async function edriveAgainst(perMinute: number, extraEnv: Record<string, string>): Promise<string> {
  const ms = await sandboxChild('ms', {
    seed: 25,
    users: 8,
    usersWithoutDrive: 0,
    folderDepth: 2,
    foldersPerLevel: 3,
    filesPerFolder: 8,
    fileSize: 512,
    resourceUnitsPerMinute: perMinute,
  });
  const m = ms.info as {
    clientId: string;
    clientSecret: string;
    loginUrl: string;
    graphUrl: string;
    userIds: string[];
  };
  const svc = await service({
    MS_CLIENT_ID: m.clientId,
    MS_CLIENT_SECRET: m.clientSecret,
    MS_LOGIN_URL: m.loginUrl,
    MS_GRAPH_URL: m.graphUrl,
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
      sync_filters: Object.fromEntries(m.userIds.map((u) => [u, user])),
    });
    await ms.ask('mark');
    const t0 = Date.now();
    await svc.api.call('POST', `/v1/collections/${id}/start`);
    const col = await svc.api.waitFor(id, ['synced', 'failed'], 30 * 60_000);
    const seconds = (Date.now() - t0) / 1000;
    const { units, refused, requests } = (await ms.ask('stats')) as {
      units: number;
      refused: number;
      requests: number;
    };
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
