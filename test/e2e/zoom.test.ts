import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import { loadConfig } from '../../src/config.ts';
import { createConnectors } from '../../src/connectors/index.ts';
import { testDatabases } from '../support/databases.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { expectedItems, keyOf } from '../connectors/zoom-harness.ts';

const CB = 'https://client.example/zoom-done';
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

interface ApiItem {
  onna_id: string;
  kind: string;
  source_id: string;
  path: string;
  custodian: string;
  sha256: string | null;
  size: number | null;
  metadata: Record<string, unknown>;
}

describe.each(testDatabases.map((d) => [d.name, d] as const))('Zoom end to end through the public API on %s', (_name, database) => {
  let sandbox: ZoomSandbox;
  let t: ItemsApp;
  let token: string;

  const json = async (res: Response) => (await res.json()) as Record<string, any>;
  const call = (method: string, path: string, body?: unknown) => t.call(token, method, path, body === undefined ? {} : { json: body });

  async function newCollection(name: string): Promise<string> {
    const ws = await json(await call('POST', '/v1/workspaces', { name: `Matter ${name}`, description: 'conf' }));
    const wallet = await json(await call('POST', '/v1/wallet', { name: 'Zoom', credential_type_name: 'Datasource', config_type: 'conf' }));
    const col = await json(await call('POST', '/v1/collections', { name, onna_parent_id: ws.onna_id, type: 'conf', credential_id: wallet.onna_id }));
    return col.onna_id as string;
  }

  /** authorization_url (302 to Zoom) -> the sandbox's consent -> our callback -> where the browser lands. */
  async function consent(query: Record<string, string>, deny = false): Promise<URL> {
    const res = await fetch(`${t.url}/v1/collections/authorization_url/conf?${new URLSearchParams({ redirect_to: CB, ...query })}`, {
      headers: { authorization: `Bearer ${token}` },
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    const atZoom = new URL(res.headers.get('location')!);
    expect(`${atZoom.origin}${atZoom.pathname}`).toBe(`${sandbox.oauthUrl}/oauth/authorize`);
    expect(atZoom.searchParams.get('code_challenge_method')).toBe('S256');
    if (deny) atZoom.searchParams.set('sandbox_deny', '1');
    const consented = await fetch(atZoom, { redirect: 'manual' });
    expect(consented.status).toBe(302);
    const callback = new URL(consented.headers.get('location')!);
    expect(callback.pathname).toBe('/v1/oauth/callback/conf');
    const back = await fetch(`${t.url}${callback.pathname}${callback.search}`, { redirect: 'manual' });
    expect(back.status).toBe(302);
    return new URL(back.headers.get('location')!);
  }

  async function pairCollection(id: string): Promise<void> {
    const landed = await consent({ state: `client-${id}` });
    expect(landed.searchParams.get('state')).toBe(`client-${id}`);
    const code = landed.searchParams.get('code')!;
    expect((await call('POST', `/v1/collections/${id}/pair_credentials?auth_code=${encodeURIComponent(code)}`)).status).toBe(204);
  }

  /** POST start; the run executes in this process (the test app has no background workers); then GET the collection. */
  async function syncToEnd(id: string): Promise<Record<string, any>> {
    const started = await call('POST', `/v1/collections/${id}/start`);
    expect(started.status).toBe(200);
    await t.engine.runOnce((await json(started)).run_id);
    return json(await call('GET', `/v1/collections/${id}`));
  }

  async function items(id: string): Promise<ApiItem[]> {
    const out: ApiItem[] = [];
    let cursor: string | null = null;
    do {
      const page = await json(await call('GET', `/v1/collections/${id}/items?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
      out.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  async function expectExactly(id: string, filters: ConfFilters): Promise<ApiItem[]> {
    const got = await items(id);
    const expected = expectedItems(sandbox, filters);
    expect(got.map((i) => keyOf(i.kind, i.source_id)).sort()).toEqual([...expected.items.keys()].sort());
    for (const item of got) {
      expect(item.sha256, item.source_id).toBe(expected.items.get(keyOf(item.kind, item.source_id)));
      expect(expected.owners).toContain(item.custodian);
    }
    return got;
  }

  beforeAll(async () => {
    sandbox = await startZoomSandbox({ seed: 41, users: 5, meetingsPerUser: 3, channels: 3, messagesPerChannel: 6, messagesPerChat: 5 });
    // The server's own wiring (createConnectors) from the ZOOM_* settings, pointed at the sandbox.
    const config = loadConfig({
      ZOOM_CLIENT_ID: sandbox.clientId,
      ZOOM_CLIENT_SECRET: sandbox.clientSecret,
      ZOOM_OAUTH_URL: sandbox.oauthUrl,
      ZOOM_API_URL: sandbox.apiUrl,
    });
    t = await startItemsApp(database, createConnectors(config));
    token = await t.token('acme');
    await t.ctx.repos.accounts.allowRedirect(await t.ctx.repos.accounts.ensureAccount('acme'), CB);
  });

  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  it('relays a declined consent to redirect_to without pairing anything', async () => {
    const id = await newCollection('declined');
    const landed = await consent({ state: 'no-thanks' }, true);
    expect(`${landed.origin}${landed.pathname}`).toBe(CB);
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('code')).toBeNull();
    expect((await call('GET', `/v1/collections/${id}/users`)).status).toBe(409);
  });

  it('pairs, discovers users of every status and a user\'s channels, then collects exactly what the filters allow', async () => {
    const id = await newCollection('everything');
    await pairCollection(id);

    const first = await json(await call('GET', `/v1/collections/${id}/users?limit=3`));
    expect(first.results).toHaveLength(3);
    const second = await json(await call('GET', `/v1/collections/${id}/users?limit=3&offset=${encodeURIComponent(first.next_page_token)}`));
    expect(second.next_page_token).toBeNull();
    const listed = [...first.results, ...second.results];
    expect(listed.map((u: any) => u.id).sort()).toEqual(sandbox.tenant.users.map((u) => u.id).sort());
    expect(new Set(listed.map((u: any) => u.data.status))).toEqual(new Set(['active', 'inactive', 'pending']));

    const member = sandbox.tenant.users[0];
    const channels = await json(await call('GET', `/v1/collections/${id}/channels?user=${member.id}`));
    expect(channels.next_page_token).toBeNull();
    expect(channels.results.map((c: any) => c.id).sort()).toEqual(sandbox.tenant.channelsOf(member.id).map((c) => c.id).sort());
    expect((await call('GET', `/v1/collections/${id}/channels`)).status).toBe(400);
    expect((await call('GET', `/v1/collections/${id}/channels?user=nobody`)).status).toBe(404);

    const [kept, dropped] = [sandbox.tenant.channels[0], sandbox.tenant.channels[1]];
    const excludedOwner = sandbox.tenant.users[1].id;
    const filters: ConfFilters = {
      account_owners: { all_selected: true, selected: [], excluded: [{ id: excludedOwner }] },
      content_selections: { all_selected: true, selected: [], excluded: [{ audio: true }] },
      chats: {
        all_selected: false,
        selected: [{ 'one-to-one': true }, { channels: { all_selected: true, selected: [], excluded: [{ id: dropped.id }] } }],
        excluded: [],
      },
    };
    expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: filters, type_sync: 'one' })).status).toBe(204);
    const c = await syncToEnd(id);
    expect(c.sync_status).toBe('synced');
    const got = await expectExactly(id, filters);
    expect(got.some((i) => i.kind === 'channel_message' && i.metadata.conversation_id === kept.id)).toBe(true);

    // The stored bytes are the sandbox's bytes.
    const video = got.find((i) => i.kind === 'recording_video')!;
    const content = await t.call(token, 'GET', `/v1/collections/${id}/items/${video.onna_id}/content`);
    expect(content.status).toBe(200);
    expect(sha256(Buffer.from(await content.arrayBuffer()))).toBe(sha256(sandbox.contentOf(video.source_id)));
  });

  it('collects selected owners with one content type and one selected channel only', async () => {
    const id = await newCollection('narrow');
    await pairCollection(id);
    const channel = sandbox.tenant.channels[2];
    const filters: ConfFilters = {
      account_owners: { all_selected: false, selected: [{ id: channel.memberIds[0] }], excluded: [] },
      content_selections: { all_selected: false, selected: [{ transcript: true }], excluded: [] },
      chats: { all_selected: false, selected: [{ channels: { all_selected: false, selected: [{ id: channel.id }], excluded: [] } }], excluded: [] },
    };
    expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: filters })).status).toBe(204);
    expect((await syncToEnd(id)).sync_status).toBe('synced');
    const got = await expectExactly(id, filters);
    expect(new Set(got.map((i) => i.kind))).toEqual(new Set(['meeting', 'transcript', 'closed_caption', 'timeline', 'channel_message']));
  });

  it('a revoked grant puts the collection in error, asking for a new pairing', async () => {
    const id = await newCollection('revoked');
    await pairCollection(id);
    const filters = { account_owners: { all_selected: true, selected: [], excluded: [] }, content_selections: { all_selected: false, selected: [], excluded: [] } };
    expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: filters })).status).toBe(204);
    sandbox.revokeAll();
    // The cached access token is refused (401 code 124); the refresh is refused (invalid_grant).
    const c = await syncToEnd(id);
    expect(c.sync_status).toBe('error');
    expect(c.status_reason).toMatch(/re-pair/);
    expect(JSON.stringify(c)).not.toMatch(/Bearer|refresh_token/);
  });
});
