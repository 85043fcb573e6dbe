import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import { expectedItems, keyOf, shaMatcher } from '../connectors/zoom-harness.ts';
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

const CB = 'https://client.example/mp-done';
const all = { all_selected: true, selected: [], excluded: [] };
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/**
 * The README's distributed setup on PostgreSQL: two API processes (WORKERS=none) behind one PUBLIC_URL and two
 * `custody worker` processes, all real `bin/custody` children sharing one database, one DATA_DIR and one key,
 * all talking to the same Zoom and Microsoft simulators.
 */
describe.skipIf(!pgUrl)('two API processes and two workers on one PostgreSQL database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-mp-'));
  let db: ScratchDatabase | undefined;
  let zoom: ZoomSandbox;
  let ms: MicrosoftSandbox;
  let api: [ServeProcess, ServeProcess];
  let workers: ServeProcess[] = [];
  let calls: [Call, Call];
  let token: string;
  let client: { client_id: string; client_secret: string };

  beforeAll(async () => {
    db = await scratchDatabase('custody_mp');
    [zoom, ms] = await Promise.all([
      startZoomSandbox({
        seed: 77,
        users: 5,
        meetingsPerUser: 2,
        channels: 3,
        messagesPerChannel: 4,
        messagesPerChat: 3,
      }),
      startMicrosoftSandbox({ seed: 78, users: 3, usersWithoutDrive: 0, deltaPageSize: 10 }),
    ]);
    const [portA, portB] = [await freePort(), await freePort()];
    const env = {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      CUSTODY_SECRET_KEY: crypto.randomBytes(24).toString('base64'),
      // The balancer's address: every API process builds the same OAuth callback URLs.
      PUBLIC_URL: `http://127.0.0.1:${portA}`,
      LOG_LEVEL: 'info',
      WORKER_CONCURRENCY: '1',
      DATABASE_POOL_SIZE: '4', // as the fleets of test/support/fleet.ts: within PostgreSQL's 100 with another file's
      ...simulatorEnv(zoom, ms),
    };
    const started = await Promise.allSettled([
      startCustody('api-a', { ...env, WORKERS: 'none' }, { port: portA }),
      startCustody('api-b', { ...env, WORKERS: 'none' }, { port: portB }),
      startCustody('worker-1', env, { worker: true }),
      startCustody('worker-2', env, { worker: true }),
    ]);
    const up = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await Promise.all(up.map((p) => p.stop('SIGKILL')));
      throw failed.reason;
    }
    api = [up[0], up[1]];
    workers = up.slice(2);
    calls = [httpCaller(api[0].url), httpCaller(api[1].url)];
    client = await createClient({ DATABASE_URL: env.DATABASE_URL, DATA_DIR: dataDir }, 'acme', [CB]);
    token = await tokenFor(calls[0], client);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...(api ?? []), ...workers].map((p) => p.stop('SIGTERM', 10_000)));
    await Promise.all([zoom?.close(), ms?.close()]);
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('syncs collections created on A, paired and started through A and B, exactly once each, on the worker processes', async () => {
    const users = zoom.tenant.users;
    const confFilters: ConfFilters[] = [
      { account_owners: all, content_selections: all },
      {
        account_owners: { all_selected: false, selected: [{ id: users[2].id }], excluded: [] },
        content_selections: { all_selected: false, selected: [{ transcript: true }], excluded: [] },
        chats: { all_selected: false, selected: [{ 'one-to-one': true }], excluded: [] },
      },
      {
        account_owners: { all_selected: true, selected: [], excluded: [{ id: users[0].id }] },
        content_selections: { all_selected: true, selected: [], excluded: [{ video: true }] },
        chats: { all_selected: false, selected: [{ channels: all }], excluded: [] },
      },
    ];
    const [alice, bob] = ms.tenant.users.map((u) => u.id) as [string, string];
    const top = (user: string) =>
      ms.listItems(user).filter((i) => i.kind === 'folder' && i.parentId === ms.listItems(user)[0].id);
    const folder = (selected: string[], excluded: string[] = []) => ({
      all_selected: selected.length === 0,
      selected: selected.map((id) => ({ id })),
      excluded: excluded.map((id) => ({ id })),
      filter_type: 'user_folders',
      filter_name: 'f',
    });
    const driveFilters = [
      { [alice]: folder([]) },
      { [bob]: folder([top(bob)[0].id]), [alice]: folder([], [top(alice)[1].id]) },
    ];
    const subtree = (user: string, root: string) => {
      const out = new Set([root]);
      for (const i of ms.listItems(user)) if (i.parentId && out.has(i.parentId)) out.add(i.id);
      return out;
    };
    /** Every item the filters select, with the SHA-256 of the simulator's bytes (null for folders). */
    const expectedDrive = (f: Record<string, ReturnType<typeof folder>>) => {
      const want = new Map<string, string | null>();
      for (const [user, sel] of Object.entries(f)) {
        const rootId = ms.listItems(user)[0].id;
        const inside = sel.all_selected
          ? subtree(user, rootId)
          : new Set(sel.selected.flatMap((s) => [...subtree(user, s.id)]));
        const outside = new Set(sel.excluded.flatMap((s) => [...subtree(user, s.id)]));
        for (const i of ms.listItems(user)) {
          if (i.id === rootId || !inside.has(i.id) || outside.has(i.id)) continue;
          want.set(keyOf(i.kind, i.id), i.kind === 'file' ? sha256(ms.contentOf(user, i.id)) : null);
        }
      }
      return want;
    };

    const plans = [
      ...confFilters.map((filters) => ({
        type: 'conf' as const,
        filters,
        expected: expectedItems(zoom, filters).items,
      })),
      ...driveFilters.map((filters) => ({ type: 'edrive' as const, filters, expected: expectedDrive(filters) })),
    ];
    const ids: string[] = [];
    for (const [i, plan] of plans.entries()) {
      const [here, there] = [i % 2, (i + 1) % 2];
      const id = await newCollection(calls[0], token, plan.type, `c${i}`);
      // The browser's return to the callback lands on the other process: the state and PKCE verifier are shared.
      await pairFlow(calls[here], token, id, {
        type: plan.type,
        redirectTo: CB,
        state: `s${i}`,
        callbackOrigin: api[there].url,
      });
      expect(
        (await calls[there](token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: plan.filters } })).status,
      ).toBe(204);
      ids.push(id);
    }
    for (const [i, id] of ids.entries())
      expect((await calls[i % 2](token, 'POST', `/v1/collections/${id}/start`)).status).toBe(200);
    const done = await Promise.all(ids.map((id) => waitForStatus(calls[1], token, id, ['synced'], 60_000, 300)));

    const runIds = done.map((c) => c.latest_run.run_id as string);
    for (const [i, id] of ids.entries()) {
      const got = await listItems(calls[i % 2], token, id);
      const { expected } = plans[i];
      const keys = got.map((it) => keyOf(it.kind, it.source_id)).sort();
      expect(keys, `collection ${i}`).toEqual([...expected.keys()].sort());
      expect(new Set(keys).size).toBe(keys.length);
      for (const it of got) {
        expect(it.sha256, it.source_id).toEqual(shaMatcher(expected.get(keyOf(it.kind, it.source_id))));
        expect(it.run_id).toBe(runIds[i]);
      }
      // A worker wrote the blob; an API process serves it from the shared DATA_DIR.
      const withContent = got.find((it) => it.sha256 !== null)!;
      const content = await calls[i % 2](token, 'GET', `/v1/collections/${id}/items/${withContent.onna_id}/content`);
      expect(sha256(Buffer.from(await content.arrayBuffer()))).toBe(withContent.sha256);
      const runs = (await jsonOf(await calls[(i + 1) % 2](token, 'GET', `/v1/collections/${id}/runs`), 200))
        .runs as Json[];
      expect(runs.map((r) => [r.run_id, r.status, r.attempt])).toEqual([[runIds[i], 'succeeded', 1]]);
    }

    // Every run was taken up by exactly one worker process, never by an API process.
    const startedBy = (p: ServeProcess) =>
      p
        .logs()
        .filter((l) => l.msg === 'run started')
        .map((l) => l.run_id as string);
    const byWorker = workers.map(startedBy);
    expect(byWorker.flat().sort()).toEqual([...runIds].sort());
    expect(api.flatMap(startedBy)).toEqual([]);
    // Both workers did work: each holds one run at a time (WORKER_CONCURRENCY=1) and a conf run takes about a second
    // (the Zoom request budget, 48/s per wallet), so a worker polling a second late still finds runs queued.
    expect(byWorker.map((r) => r.length > 0)).toEqual([true, true]);
  }, 120_000);

  it('shares one rate-limit budget: 600 requests through A and B alternately, then 429 from both', async () => {
    const fresh = await tokenFor(calls[1], client);
    const statuses: number[] = [];
    for (let sent = 0; sent < 600; sent += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, async (_, k) => {
          const res = await calls[(sent + k) % 2](fresh, 'GET', '/v1/workspaces');
          await res.arrayBuffer();
          return res.status;
        }),
      );
      statuses.push(...batch);
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    for (const call of calls) {
      const res = await call(fresh, 'GET', '/v1/workspaces');
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toMatchObject({ code: '00429_too_many_requests', title: 'Too Many Requests' });
    }
  }, 60_000);
});
