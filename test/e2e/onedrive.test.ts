import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { createOneDriveConnector } from '../../src/connectors/onedrive/index.ts';
import { quickXorHashBase64 } from '../../src/connectors/onedrive/quickxorhash.ts';
import { loadConfig } from '../../src/config.ts';
import { testDatabases } from '../support/databases.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';

const CB = 'https://client.example/edrive-done';
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

interface ApiItem {
  onna_id: string;
  kind: string;
  source_id: string;
  path: string;
  custodian: string;
  sha256: string | null;
  provider_hash: { type: string; value: string } | null;
  hash_verified: boolean | null;
}

describe.each(testDatabases.map((d) => [d.name, d] as const))('OneDrive end to end through the public API on %s', (_name, database) => {
  let sandbox: MicrosoftSandbox;
  let t: ItemsApp;
  let token: string;
  let collectionId: string;
  let alice: string;
  let bob: string;
  let carol: string;
  let driveless: string;

  const json = async (res: Response) => (await res.json()) as Record<string, any>;
  const call = (method: string, path: string, body?: unknown) => t.call(token, method, path, body === undefined ? {} : { json: body });
  const rootOf = (userId: string) => sandbox.listItems(userId)[0].id;
  const topFolders = (userId: string) => sandbox.listItems(userId).filter((i) => i.kind === 'folder' && i.parentId === rootOf(userId));
  const subtree = (userId: string, id: string) => {
    const out = new Set([id]);
    for (const i of sandbox.listItems(userId)) if (i.parentId && out.has(i.parentId)) out.add(i.id);
    return out;
  };

  /** authorization_url -> the sandbox's admin consent -> our callback; returns where the browser lands. */
  async function consent(clientState: string): Promise<URL> {
    const res = await call('GET', `/v1/collections/authorization_url/edrive?${new URLSearchParams({ redirect_to: CB, state: clientState })}`);
    expect(res.status).toBe(200);
    const { authorization_url } = await json(res);
    const atMicrosoft = await fetch(authorization_url, { redirect: 'manual' });
    expect(atMicrosoft.status).toBe(302);
    const callback = new URL(atMicrosoft.headers.get('location')!);
    expect(callback.pathname).toBe('/v1/oauth/callback/edrive');
    const back = await fetch(`${t.url}${callback.pathname}${callback.search}`, { redirect: 'manual' });
    expect(back.status).toBe(302);
    return new URL(back.headers.get('location')!);
  }

  /** POST start, then the run executes in this process (the test app has no background workers). */
  async function runToEnd(): Promise<Record<string, any>> {
    const started = await call('POST', `/v1/collections/${collectionId}/start`);
    expect(started.status).toBe(200);
    const { run_id } = await json(started);
    expect((await t.engine.runOnce(run_id)).status).toBe('succeeded');
    return json(await call('GET', `/v1/collections/${collectionId}`));
  }

  async function items(): Promise<ApiItem[]> {
    const out: ApiItem[] = [];
    let cursor: string | null = null;
    do {
      const page = await json(await call('GET', `/v1/collections/${collectionId}/items?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
      out.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  beforeAll(async () => {
    sandbox = await startMicrosoftSandbox({ seed: 31, users: 4, usersWithoutDrive: 1, deltaPageSize: 8 });
    [alice, bob, carol, driveless] = sandbox.tenant.users.map((u) => u.id);
    const { microsoft } = loadConfig({ MS_CLIENT_ID: sandbox.clientId, MS_CLIENT_SECRET: sandbox.clientSecret, MS_LOGIN_URL: sandbox.loginUrl, MS_GRAPH_URL: sandbox.graphUrl });
    const connector = createOneDriveConnector({ clientId: microsoft.clientId!, clientSecret: microsoft.clientSecret!, loginUrl: microsoft.loginUrl, graphUrl: microsoft.graphUrl });
    t = await startItemsApp(database, [connector]);
    token = await t.token('acme');
    await t.ctx.repos.accounts.allowRedirect(await t.ctx.repos.accounts.ensureAccount('acme'), CB);
    const ws = await json(await call('POST', '/v1/workspaces', { name: 'Matter 7', description: 'edrive' }));
    const wallet = await json(await call('POST', '/v1/wallet', { name: 'Contoso', credential_type_name: 'Datasource', config_type: 'edrive' }));
    const col = await json(await call('POST', '/v1/collections', { name: 'Drives', onna_parent_id: ws.onna_id, type: 'edrive', credential_id: wallet.onna_id }));
    collectionId = col.onna_id;
  });

  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  it('relays a denied consent and refuses a tampered state without pairing anything', async () => {
    sandbox.denyConsent = true;
    try {
      const landed = await consent('denied-1');
      expect(landed.origin + landed.pathname).toBe(CB);
      expect(landed.searchParams.get('error')).toBe('consent_required');
      expect(landed.searchParams.get('code')).toBeNull();
      expect(landed.searchParams.get('state')).toBe('denied-1');
    } finally {
      sandbox.denyConsent = false;
    }
    const { authorization_url } = await json(await call('GET', `/v1/collections/authorization_url/edrive?${new URLSearchParams({ redirect_to: CB })}`));
    const state = new URL(authorization_url).searchParams.get('state')!;
    const tampered = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
    const res = await fetch(`${t.url}/v1/oauth/callback/edrive?${new URLSearchParams({ admin_consent: 'True', tenant: sandbox.tenantId, state: tampered })}`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect((await call('GET', `/v1/collections/${collectionId}/users`)).status).toBe(409);
  });

  it('pairs through admin consent, then discovers users and folders', async () => {
    const landed = await consent('client-7');
    expect(landed.searchParams.get('state')).toBe('client-7');
    const code = landed.searchParams.get('code')!;
    expect(code).toBeTruthy();
    expect((await call('POST', `/v1/collections/${collectionId}/pair_credentials?auth_code=${encodeURIComponent(code)}`)).status).toBe(204);

    const first = await json(await call('GET', `/v1/collections/${collectionId}/users?limit=3`));
    expect(first.limit).toBe(3);
    expect(first.entries).toHaveLength(3);
    const second = await json(await call('GET', `/v1/collections/${collectionId}/users?limit=3&marker=${encodeURIComponent(first.next_marker)}`));
    expect(second.next_marker).toBeNull();
    expect([...first.entries, ...second.entries].map((e: any) => e.id)).toEqual(sandbox.tenant.users.map((u) => u.id));

    const top = await json(await call('GET', `/v1/collections/${collectionId}/folders?user_id=${alice}`));
    expect(top.results.map((r: any) => r.id)).toEqual(topFolders(alice).map((f) => f.id));
    const parent = topFolders(alice)[1];
    const below = await json(await call('GET', `/v1/collections/${collectionId}/folders?user_id=${alice}&parent_id=${parent.id}`));
    expect(below.results.length).toBeGreaterThan(0);
    expect(below.results[0].sorted_path_elements[0]).toEqual({ id: parent.id, name: parent.name });
    const none = await call('GET', `/v1/collections/${collectionId}/folders?user_id=${driveless}`);
    expect(none.status).toBe(404);
    expect((await json(none)).detail).toMatch(/OneDrive/);
  });

  it('collects exactly what the filters allow, with verified content', async () => {
    const excluded = topFolders(alice)[0];
    const selected = topFolders(bob)[1];
    const patch = await call('PATCH', `/v1/collections/${collectionId}`, {
      type_sync: 'auto',
      sync_filters: {
        [alice]: { all_selected: true, selected: [], excluded: [{ id: excluded.id }], filter_type: 'user_folders', filter_name: 'Alice' },
        [bob]: { all_selected: false, selected: [{ id: selected.id }], excluded: [], filter_type: 'user_folders', filter_name: 'Bob' },
        [driveless]: { all_selected: true, selected: [], excluded: [], filter_type: 'user_folders', filter_name: 'Room' },
      },
    });
    expect(patch.status).toBe(204);
    const c = await runToEnd();
    expect(c.sync_status).toBe('synced');

    const got = await items();
    const skip = subtree(alice, excluded.id);
    const want = new Map<string, string>();
    for (const i of sandbox.listItems(alice)) if (i.parentId && !skip.has(i.id)) want.set(i.id, alice);
    for (const id of subtree(bob, selected.id)) want.set(id, bob);
    expect(new Map(got.map((i) => [i.source_id, i.custodian]))).toEqual(want);
    expect(got.some((i) => i.custodian === carol)).toBe(false);
    for (const item of got) {
      expect(item.path).toBe(sandbox.pathOf(item.custodian, item.source_id));
      if (item.kind !== 'file') continue;
      const bytes = sandbox.contentOf(item.custodian, item.source_id);
      expect(item.sha256).toBe(sha256(bytes));
      expect(item.provider_hash).toEqual({ type: 'quickXorHash', value: quickXorHashBase64(bytes) });
      expect(item.hash_verified).toBe(true);
    }
    const runs = await json(await call('GET', `/v1/collections/${collectionId}/runs`));
    expect(runs.runs[0].errors.map((e: any) => e.source_id)).toEqual([driveless]);
  });

  it('fetches only the changes on the next run and flags a corrupted download', async () => {
    const keep = topFolders(alice)[1];
    const doomed = sandbox.listItems(alice).find((i) => i.kind === 'file' && i.parentId === keep.id)!;
    const added = sandbox.mutate.addFile(alice, keep.id, 'evidence.txt', Buffer.from('the new evidence'));
    sandbox.mutate.deleteItem(alice, doomed.id);
    sandbox.faults.corruptDownloads = 2;
    const mark = sandbox.requests.length;

    const c = await runToEnd();
    expect(c.sync_status).toBe('synced');
    // The new file, downloaded twice because its bytes did not match the stated quickXorHash both times.
    expect(sandbox.requests.slice(mark).filter((r) => r.host === 'download')).toHaveLength(2);
    const got = await items();
    expect(got.find((i) => i.source_id === doomed.id)).toBeUndefined();
    const evidence = got.find((i) => i.source_id === added.id)!;
    expect(evidence.path).toBe(sandbox.pathOf(alice, added.id));
    expect(evidence.hash_verified).toBe(false);
    const runs = await json(await call('GET', `/v1/collections/${collectionId}/runs`));
    expect(runs.runs[0].errors.map((e: any) => e.reason).join('\n')).toMatch(/quickXorHash mismatch/);
  });
});
