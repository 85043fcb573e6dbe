import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quickXorHashBase64 } from '../../src/connectors/onedrive/quickxorhash.ts';
import {
  consentFlow,
  httpCaller,
  jsonOf,
  listItems,
  newCollection,
  tokenFor,
  waitForStatus,
  type ApiItem,
  type Call,
  type Json,
} from '../support/app.ts';
import { createClient, freePort, startCustody, type ServeProcess } from '../support/process.ts';

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/**
 * The newcomer path: the real `bin/custody serve` with no provider credentials and no database settings runs
 * the simulators in-process, on SQLite under DATA_DIR, and the whole flow can be walked over HTTP.
 */
describe('bin/custody serve out of the box (embedded default, simulators in-process)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-proc-'));
  let server: ServeProcess | undefined;
  let call: Call;
  let redirectTo: string;
  let client: { client_id: string; client_secret: string };
  let token: string;
  const synced: Partial<Record<'conf' | 'edrive', { id: string; items: ApiItem[] }>> = {};

  const envFor = (port: number) => ({ DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info' });
  const sandboxLine = (variable: string) =>
    server!.logs().find((l) => String(l.msg).startsWith(`SANDBOX MODE: ${variable} is not set`));

  async function boot(): Promise<void> {
    const port = await freePort();
    server = await startCustody('serve', envFor(port), { port });
    call = httpCaller(server.url);
  }

  async function expectContent(id: string, item: ApiItem): Promise<Buffer> {
    const res = await call(token, 'GET', `/v1/collections/${id}/items/${item.onna_id}/content`);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('etag')).toBe(`"${item.sha256}"`);
    expect(sha256(bytes)).toBe(item.sha256);
    return bytes;
  }

  beforeAll(async () => {
    redirectTo = `http://127.0.0.1:${await freePort()}/cb`;
    // a DATA_DIR made by hand, open to every local user: the service narrows it
    fs.chmodSync(dataDir, 0o755);
    await boot();
  }, 60_000);

  afterAll(async () => {
    await server?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('says loudly that both providers are simulated, and keeps its data under DATA_DIR', () => {
    expect(sandboxLine('ZOOM_CLIENT_ID')).toMatchObject({
      zoom_oauth_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    expect(sandboxLine('MS_CLIENT_ID')).toMatchObject({
      ms_login_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    expect(server!.logs().find((l) => l.msg === 'custody is listening')).toMatchObject({
      database: 'sqlite',
      data_dir: dataDir,
    });
    expect(fs.existsSync(path.join(dataDir, 'custody.db'))).toBe(true);
    expect(fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('admin create-client works against the running server, whose token endpoint accepts the client', async () => {
    client = await createClient({ DATA_DIR: dataDir }, 'demo', [redirectTo]);
    token = await tokenFor(call, client);
    expect((await call(token, 'GET', '/v1/workspaces')).status).toBe(200);
  });

  it('conf: consent through the Zoom simulator, pair, discover, PATCH pending, synced, content downloadable', async () => {
    const id = await newCollection(call, token, 'conf', 'Zoom');
    const landed = await consentFlow(call, token, {
      type: 'conf',
      redirectTo,
      state: 'xyz',
      atProvider: (url) => void expect(url.origin).toBe(sandboxLine('ZOOM_CLIENT_ID')!.zoom_oauth_url),
    });
    expect(`${landed.origin}${landed.pathname}`).toBe(redirectTo);
    expect(landed.searchParams.get('state')).toBe('xyz');
    const code = landed.searchParams.get('code')!;
    expect(
      (await call(token, 'POST', `/v1/collections/${id}/pair_credentials?auth_code=${encodeURIComponent(code)}`))
        .status,
    ).toBe(204);

    const users = (await jsonOf(await call(token, 'GET', `/v1/collections/${id}/users`), 200)).results as Json[];
    expect(users.length).toBeGreaterThan(1);
    const owner = users[0].id as string;
    const channels = (await jsonOf(await call(token, 'GET', `/v1/collections/${id}/channels?user=${owner}`), 200))
      .results as Json[];
    expect(channels.length).toBeGreaterThan(0);
    const channel = channels[0].id as string;

    const filters = {
      account_owners: { all_selected: false, selected: [{ id: owner }], excluded: [] },
      content_selections: { all_selected: true, selected: [], excluded: [] },
      chats: {
        all_selected: false,
        selected: [{ channels: { all_selected: false, selected: [{ id: channel }], excluded: [] } }],
        excluded: [],
      },
    };
    expect(
      (await call(token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: filters, sync_status: 'pending' } }))
        .status,
    ).toBe(204);
    const c = await waitForStatus(call, token, id, ['synced'], 45_000);
    expect(c.latest_run).toMatchObject({ status: 'succeeded', error_count: 0 });

    const items = await listItems(call, token, id);
    // Channel messages belong to the channel's unit; everything else to the selected owner.
    expect(new Set(items.map((i) => i.custodian))).toEqual(new Set([owner, channel]));
    const kinds = new Set(items.map((i) => i.kind));
    expect([...kinds]).toEqual(expect.arrayContaining(['meeting', 'recording_video', 'transcript', 'channel_message']));
    expect(kinds.has('chat_message')).toBe(false);
    expect(items.filter((i) => i.kind === 'channel_message').every((i) => i.metadata.conversation_id === channel)).toBe(
      true,
    );
    await expectContent(
      id,
      items.find((i) => i.kind === 'recording_video')!,
    );
    synced.conf = { id, items };
  }, 60_000);

  it('edrive: admin consent through the Microsoft simulator, pair, discover, PATCH, start, synced, verified content', async () => {
    const id = await newCollection(call, token, 'edrive', 'OneDrive');
    const landed = await consentFlow(call, token, {
      type: 'edrive',
      redirectTo,
      state: 'abc',
      atProvider: (url) => void expect(url.origin).toBe(sandboxLine('MS_CLIENT_ID')!.ms_login_url),
    });
    expect(landed.searchParams.get('state')).toBe('abc');
    const code = landed.searchParams.get('code')!;
    expect(
      (await call(token, 'POST', `/v1/collections/${id}/pair_credentials?auth_code=${encodeURIComponent(code)}`))
        .status,
    ).toBe(204);

    const users = (await jsonOf(await call(token, 'GET', `/v1/collections/${id}/users`), 200)).entries as Json[];
    let user: string | undefined;
    let folders: Json[] = [];
    for (const u of users) {
      const res = await call(token, 'GET', `/v1/collections/${id}/folders?user_id=${u.id}`);
      if (res.status === 404) continue;
      folders = (await jsonOf(res, 200)).results as Json[];
      user = u.id as string;
      break;
    }
    expect(folders.length).toBeGreaterThan(0);

    const filters = {
      [user!]: {
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
    expect((await call(token, 'POST', `/v1/collections/${id}/start`)).status).toBe(200);
    const c = await waitForStatus(call, token, id, ['synced'], 45_000);
    expect(c.latest_run).toMatchObject({ status: 'succeeded', error_count: 0 });

    const items = await listItems(call, token, id);
    expect(new Set(items.map((i) => i.custodian))).toEqual(new Set([user]));
    expect(items.filter((i) => i.kind === 'folder').map((i) => i.source_id)).toEqual(
      expect.arrayContaining(folders.map((f) => f.id)),
    );
    const files = items.filter((i) => i.kind === 'file');
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(f.hash_verified, f.path).toBe(true);
    const bytes = await expectContent(id, files[0]);
    expect(files[0].provider_hash).toEqual({ type: 'quickXorHash', value: quickXorHashBase64(bytes) });
    synced.edrive = { id, items };
  }, 60_000);

  it('never logs a secret', () => {
    const log = server!.output();
    for (const secret of [client.client_secret, token, 'sandbox-zoom-secret', 'sandbox-ms-secret'])
      expect(log).not.toContain(secret);
  });

  it('exits 0 on SIGTERM, and a restart on the same DATA_DIR still has every item, token and blob', async () => {
    expect(await server!.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(server!.logs().some((l) => l.msg === 'shutting down')).toBe(true);

    await boot();
    expect(Object.keys(synced).sort()).toEqual(['conf', 'edrive']);
    for (const { id, items } of Object.values(synced)) {
      const again = await listItems(call, token, id);
      expect(again.map((i) => [i.onna_id, i.sha256]).sort()).toEqual(items.map((i) => [i.onna_id, i.sha256]).sort());
      await expectContent(
        id,
        items.find((i) => i.sha256 !== null)!,
      );
      expect((await jsonOf(await call(token, 'GET', `/v1/collections/${id}`), 200)).sync_status).toBe('synced');
    }
    expect(await server!.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 90_000);
});
