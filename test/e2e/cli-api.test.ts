import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import {
  httpCaller,
  jsonOf,
  listItems,
  newCollection,
  pairFlow,
  parseCsv,
  tokenFor,
  type Call,
  type Json,
} from '../support/app.ts';
import {
  createClient,
  freePort,
  runCustody,
  spawnCustody,
  startCustody,
  type CustodyProcess,
  type ServeProcess,
} from '../support/process.ts';

/** The API commands of the real `bin/custody`, as child processes, against a real `custody serve` (simulators in-process). */
describe('bin/custody API commands against a running server', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-cli-api-'));
  const configDir = path.join(dataDir, 'cli-config');
  let server: ServeProcess;
  let call: Call;
  let token: string;
  let client: { client_id: string; client_secret: string };
  let redirectTo: string;
  let zoomPort: number;
  let zoom: CustodyProcess | undefined;

  /** `custody sandbox` on a fixed Zoom port: restarting it forgets every grant it gave, as a revoked consent would. */
  async function startZoom(): Promise<Record<string, string>> {
    zoom = spawnCustody('sandbox', ['sandbox', '--zoom-port', String(zoomPort), '--ms-port', '0'], {});
    const deadline = Date.now() + 30_000;
    while (!/ZOOM_CLIENT_ID=.*\n/.test(zoom.output())) {
      if (Date.now() > deadline) throw new Error(`sandbox did not start: ${zoom.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return Object.fromEntries([...zoom.output().matchAll(/(ZOOM_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  }
  /** Only what the CLI reads: the profile directory (never the developer's ~/.config) and nothing of the service. */
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCustody(args, { CUSTODY_CONFIG_DIR: configDir, ...env }, 60_000);
  const json = async (args: string[]) => {
    const res = await cli([...args, '--json']);
    if (res.code !== 0) throw new Error(`custody ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
    return JSON.parse(res.stdout);
  };
  const oneLine = (text: string) => {
    expect(text.trim().split('\n')).toHaveLength(1);
    expect(text).not.toMatch(/\n\s+at /);
  };

  beforeAll(async () => {
    const port = await freePort();
    redirectTo = `http://127.0.0.1:${await freePort()}/cb`;
    zoomPort = await freePort();
    const zoomEnv = await startZoom();
    server = await startCustody(
      'serve',
      { DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info', ...zoomEnv },
      { port },
    );
    call = httpCaller(server.url);
    client = await createClient({ DATA_DIR: dataDir }, 'cli', [redirectTo]);
    token = await tokenFor(call, client);
  }, 90_000);

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await zoom?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('login checks the credentials and stores them in a 0600 profile; bad credentials are one line and exit 1', async () => {
    const bad = await cli(['login', '--url', server.url, '--client-id', client.client_id, '--client-secret', 'wrong']);
    expect(bad.code).toBe(1);
    oneLine(bad.stderr);
    expect(bad.stderr).toMatch(/invalid_client/);
    expect(fs.existsSync(path.join(configDir, 'profile.json'))).toBe(false);

    const res = await cli([
      'login',
      '--url',
      server.url,
      '--client-id',
      client.client_id,
      '--client-secret',
      client.client_secret,
    ]);
    expect(res.code).toBe(0);
    const file = path.join(configDir, 'profile.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ url: server.url, client_id: client.client_id });
  }, 60_000);

  it('workspaces create and list, collections list and show, API errors as one line with exit 1', async () => {
    const created = await json(['workspaces', 'create', '--name', 'Matter CLI', '--description', 'from the terminal']);
    const listed = await json(['workspaces', 'list']);
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ onna_id: created.onna_id, name: 'Matter CLI', description: 'from the terminal' }),
      ]),
    );

    const id = await newCollection(call, token, 'edrive', 'Listed');
    const collections = await json(['collections', 'list']);
    expect(collections.map((c: Json) => c.onna_id)).toContain(id);
    expect((await json(['collections', 'show', id])).onna_id).toBe(id);
    const text = await cli(['collections', 'show', id]);
    expect(text.stdout).toMatch(/status created/);

    const missing = await cli(['collections', 'show', 'col_nope']);
    expect(missing.code).toBe(1);
    oneLine(missing.stderr);
    expect(missing.stderr).toMatch(/404/);

    const unreachable = await cli(['workspaces', 'list', '--url', `http://127.0.0.1:${await freePort()}`]);
    expect(unreachable.code).toBe(1);
    oneLine(unreachable.stderr);
    expect(unreachable.stderr).toMatch(/cannot reach/);
  }, 120_000);

  it('collections start --watch exits 0 once the run succeeded; items, manifest and search then show the collection', async () => {
    const id = await newCollection(call, token, 'edrive', 'Watched');
    await pairFlow(call, token, id, { type: 'edrive', redirectTo });
    const users = (await jsonOf(await call(token, 'GET', `/v1/collections/${id}/users`), 200)).entries as Json[];
    const user = users[0].id as string;
    const filters = {
      [user]: {
        all_selected: true,
        selected: [],
        excluded: [],
        filter_type: 'user_folders',
        filter_name: 'Everything',
      },
    };
    expect(
      (await call(token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: filters, type_sync: 'one' } }))
        .status,
    ).toBe(204);

    const watched = await cli(['collections', 'start', id, '--watch', '--interval', '200']);
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toMatch(/^run \S+ succeeded: \d+ listed, \d+ collected/);
    const after = await jsonOf(await call(token, 'GET', `/v1/collections/${id}`), 200);
    expect(after.latest_run.status).toBe('succeeded');

    const items = await listItems(call, token, id);
    expect(items.length).toBeGreaterThan(0);
    expect((await json(['items', 'list', id])).map((i: Json) => i.onna_id)).toEqual(items.map((i) => i.onna_id));

    const out = path.join(dataDir, 'manifest.csv');
    const manifest = await cli(['manifest', id, '--format', 'csv', '--out', out]);
    expect(manifest.code, manifest.stderr).toBe(0);
    const rows = parseCsv(fs.readFileSync(out, 'utf8'));
    expect(rows[0]).toContain('record_type');
    expect(rows.filter((r) => r[rows[0].indexOf('record_type')] === 'item')).toHaveLength(items.length);

    const file = items.find((i) => i.kind === 'file')!;
    const hits = await json(['search', `name:"${file.name}"`, '--collection', id]);
    expect(hits.results.map((r: Json) => r.item.onna_id)).toContain(file.onna_id);
  }, 120_000);

  it('collections start --watch exits non-zero when the run does not succeed (consent gone at Zoom: needs user action)', async () => {
    const id = await newCollection(call, token, 'conf', 'Doomed');
    await pairFlow(call, token, id, { type: 'conf', redirectTo });
    const filters = {
      account_owners: { all_selected: true, selected: [], excluded: [] },
      content_selections: { all_selected: true, selected: [], excluded: [] },
    };
    expect(
      (await call(token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: filters, type_sync: 'one' } }))
        .status,
    ).toBe(204);
    await zoom!.stop();
    await startZoom();

    const watched = await cli(['collections', 'start', id, '--watch', '--interval', '200']);
    const run = (await jsonOf(await call(token, 'GET', `/v1/collections/${id}`), 200)).latest_run;
    expect(run, watched.stderr).not.toBeNull();
    expect(run.status).not.toBe('succeeded');
    expect(watched.stdout).toContain(`run ${run.run_id} ${run.status}`);
    expect(watched.code).toBe(run.status === 'completed_with_errors' ? 3 : 4);
    // the engine told the outbox (the webhooks' feed) that the collection needs user action
    const db = openDatabase({ sqlitePath: path.join(dataDir, 'custody.db') });
    const events = await db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('collection_id', '=', id)
      .where('type', '=', 'collection.error')
      .execute();
    await db.destroy();
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(events[0].data)).toMatchObject({ collection_id: id, reason: expect.any(String) });
    const json = await cli(['collections', 'start', id, '--watch', '--interval', '200', '--json']);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: expect.not.stringMatching(/^succeeded$/) });
  }, 120_000);

  it('GET /metrics (unauthenticated, same port) counts the runs, items, bytes, provider requests, refreshes and API requests of those syncs', async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    const value = (series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(value('custody_runs_total{type="edrive",outcome="succeeded"}')).toBeGreaterThanOrEqual(1);
    expect(
      [
        value('custody_runs_total{type="conf",outcome="error"}'),
        value('custody_runs_total{type="conf",outcome="failed"}'),
      ].some((v) => v !== undefined && v >= 1),
    ).toBe(true);
    expect(value('custody_items_collected_total{type="edrive",kind="file"}')).toBeGreaterThan(0);
    expect(value('custody_bytes_collected_total{type="edrive"}')).toBeGreaterThan(0);
    expect(value('custody_provider_requests_total{provider="microsoft",status="200"}')).toBeGreaterThan(0);
    expect(value('custody_provider_requests_total{provider="zoom",status="401"}')).toBeGreaterThan(0);
    expect(value('custody_provider_budget_wait_seconds_count{provider="microsoft"}')).toBeGreaterThan(0);
    expect(value('custody_token_refreshes_total{provider="zoom",result="revoked"}')).toBeGreaterThanOrEqual(1);
    const rate = text
      .split('\n')
      .find((l) => l.startsWith('custody_provider_budget_rate{provider="microsoft",credential="'));
    expect(Number(rate?.split(' ')[1])).toBeGreaterThan(0);
    expect(value('custody_runs{state="running"}')).toBe(0);
    expect(value('custody_runs{state="queued"}')).toBe(0);
    expect(
      value('custody_http_request_duration_seconds_count{route="/v1/collections/:id",method="GET",status="200"}'),
    ).toBeGreaterThan(0);
    expect(
      value('custody_http_request_duration_seconds_count{route="/v1/collections/:id",method="GET",status="404"}'),
    ).toBeGreaterThan(0);
  });
});
