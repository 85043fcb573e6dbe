import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { jsonOf, startTestApp, waitForStatus, type Json, type TestApp } from '../support/app.ts';
import { conformance, type Conformance, type ConformanceCall } from '../support/conformance.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const CB = 'https://client.example/done';
const ZOOM_SECRET = 'zoom-webhook-secret-for-conformance';

/**
 * The e2e flows of both collection types, every operation of docs/openapi.json, valid and invalid requests, each
 * exchange checked by Stoplight Prism's validators against the committed document (test/support/conformance.ts).
 * The test fails on any violation, and when an operation of the document was never exercised.
 */
describe('the wire matches docs/openapi.json (Prism validators)', () => {
  let zoom: ZoomSandbox;
  let graph: MicrosoftSandbox;
  let t: TestApp;
  let v: Conformance;
  let call: ConformanceCall;
  let token: string;
  let client: { clientId: string; clientSecret: string };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    zoom = await startZoomSandbox({
      seed: 7,
      users: 2,
      meetingsPerUser: 1,
      channels: 1,
      messagesPerChannel: 2,
      messagesPerChat: 2,
    });
    graph = await startMicrosoftSandbox({ seed: 7, users: 2 });
    t = await startTestApp({
      env: {
        ZOOM_CLIENT_ID: zoom.clientId,
        ZOOM_CLIENT_SECRET: zoom.clientSecret,
        ZOOM_OAUTH_URL: zoom.oauthUrl,
        ZOOM_API_URL: zoom.apiUrl,
        ZOOM_WEBHOOK_SECRET_TOKEN: ZOOM_SECRET,
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        ...microsoftEnv(graph),
      },
    });
    v = await conformance('docs/openapi.json', t.url);
    call = v.call;
    client = await t.client('acme', [CB]);
  });
  afterAll(async () => {
    await t?.close();
    await zoom?.close();
    await graph?.close();
  });

  const ok = async (res: Response, status: number) => jsonOf(res, status);
  const api = (method: string, path: string, json?: unknown) =>
    call(token, method, path, json === undefined ? {} : { json });

  it('token endpoint and metadata', async () => {
    await ok(await call(null, 'GET', '/.well-known/oauth-authorization-server'), 200);
    const form = { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret };
    const pair = await ok(await call(null, 'POST', '/v1/oauth/token', { form }), 200);
    const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
    await ok(
      await call(null, 'POST', '/v1/oauth/token', {
        form: { grant_type: 'refresh_token', refresh_token: pair.refresh_token },
        headers: { authorization: basic },
      }),
      200,
    );
    token = (await ok(await call(null, 'POST', '/v1/oauth/token', { form }), 200)).access_token as string;
    await ok(await call(null, 'POST', '/v1/oauth/token', { form: { ...form, client_secret: 'wrong' } }), 401);
    await ok(
      await call(null, 'POST', '/v1/oauth/token', {
        form: { client_id: client.clientId, client_secret: client.clientSecret },
      }),
      400,
    );
    await ok(await call(null, 'POST', '/v1/oauth/token', { form: { ...form, grant_type: 'password' } }), 400);
    await ok(await call(null, 'POST', '/v1/oauth/token', { json: form, invalid: true }), 400);
    await ok(
      await call(null, 'POST', '/v1/oauth/token', {
        raw: '<x/>',
        headers: { 'content-type': 'application/xml' },
        invalid: true,
      }),
      400,
    );
    await ok(
      await call(null, 'POST', '/v1/oauth/token', {
        raw: 'x'.repeat(9000),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      413,
    );
    const other = await t.client('limited');
    let res: Response;
    do
      res = await call(null, 'POST', '/v1/oauth/token', {
        form: { ...form, client_id: other.clientId, client_secret: 'wrong' },
      });
    while (res.status === 401);
    await ok(res, 429);
  });

  it('workspaces, wallets and collections of both types, with malformed and refused requests', async () => {
    ids.ws = (
      await ok(await api('POST', '/v1/workspaces', { name: 'Matter', description: 'conformance' }), 201)
    ).onna_id;
    await ok(await api('GET', '/v1/workspaces?limit=5'), 200);
    await ok(await api('GET', `/v1/workspaces/${ids.ws}`), 200);
    await ok(await api('GET', `/v1/workspaces/${ids.ws}/collections`), 200);
    for (const type of ['conf', 'edrive']) {
      ids[`wallet_${type}`] = (
        await ok(
          await api('POST', '/v1/wallet', { name: type, credential_type_name: 'Datasource', config_type: type }),
          201,
        )
      ).onna_id;
      const col = { name: type, onna_parent_id: ids.ws, type, credential_id: ids[`wallet_${type}`] };
      ids[type] = (await ok(await api('POST', '/v1/collections', col), 201)).onna_id;
    }
    await ok(await api('GET', '/v1/wallet'), 200);
    await ok(await api('GET', `/v1/wallet/${ids.wallet_conf}`), 200);
    await ok(await api('GET', '/v1/collections?type=conf'), 200);
    await ok(await api('GET', `/v1/collections/${ids.conf}`), 200);
    // refused: no token, a bad token, unknown and over-long ids, bad bodies and media types, a body too large
    await ok(await call(null, 'GET', '/v1/workspaces'), 401);
    await ok(await call('not-a-token', 'GET', '/v1/workspaces'), 401);
    await ok(await api('GET', '/v1/workspaces/ws_unknown'), 404);
    await ok(await call(token, 'GET', `/v1/workspaces/${'x'.repeat(65)}`, { invalid: true }), 400);
    await ok(await call(token, 'GET', `/v1/collections/${'x'.repeat(65)}/items`, { invalid: true }), 400);
    await ok(await call(token, 'GET', `/v1/workspaces/${'x'.repeat(120)}`, { invalid: true }), 414);
    await ok(await call(token, 'GET', '/v1/workspaces?limit=0', { invalid: true }), 400);
    await ok(await call(token, 'POST', '/v1/workspaces', { json: { name: 7, description: 'd' }, invalid: true }), 400);
    await ok(
      await call(token, 'POST', '/v1/workspaces', {
        raw: '<w/>',
        headers: { 'content-type': 'application/xml' },
        invalid: true,
      }),
      415,
    );
    await ok(
      await call(token, 'POST', '/v1/search', {
        raw: JSON.stringify({ query: 'x'.repeat(1_100_000) }),
        headers: { 'content-type': 'application/json' },
        invalid: true,
      }),
      413,
    );
    await ok(
      await call(token, 'POST', '/v1/collections', {
        json: { name: 'n', onna_parent_id: 'ws_unknown', type: 'conf', credential_id: ids.wallet_conf },
      }),
      404,
    );
    await ok(await call(token, 'GET', '/v1/workspaces', { headers: { 'x-padding': 'p'.repeat(20_000) } }), 431);
  });

  it('pairs, discovers and syncs a conf (Zoom) collection', async () => {
    const id = ids.conf;
    await ok(await api('POST', `/v1/collections/${id}/start`), 409);
    await ok(await api('GET', `/v1/collections/${id}/users`), 409);
    const redirect = await call(
      token,
      'GET',
      `/v1/collections/authorization_url/conf?redirect_to=${encodeURIComponent(CB)}&state=s1`,
    );
    expect(redirect.status).toBe(302);
    await ok(
      await call(token, 'GET', `/v1/collections/authorization_url/conf?redirect_to=${encodeURIComponent(CB)}`, {
        headers: { accept: 'application/json' },
      }),
      200,
    );
    await ok(
      await api(
        'GET',
        `/v1/collections/authorization_url/conf?redirect_to=${encodeURIComponent('https://elsewhere.example/')}`,
      ),
      400,
    );
    await ok(await call(null, 'GET', '/v1/oauth/callback/conf?state=forged&code=x'), 400);
    await pair(id, 'conf');
    await ok(await api('POST', `/v1/collections/${id}/pair_credentials?auth_code=used-or-unknown`), 400);
    const users = await ok(await api('GET', `/v1/collections/${id}/users?limit=10`), 200);
    await ok(await api('GET', `/v1/collections/${id}/channels?user=${encodeURIComponent(users.results[0].id)}`), 200);
    await ok(await call(token, 'GET', `/v1/collections/${id}/channels`, { invalid: true }), 400);
    await ok(await api('GET', `/v1/collections/${id}/folders?user_id=u`), 400);
    await ok(
      await api('PATCH', `/v1/collections/${id}`, { sync_filters: { account_owners: { all_selected: true } } }),
      422,
    );
    const filters = {
      account_owners: { all_selected: true, selected: [], excluded: [] },
      content_selections: { all_selected: true, selected: [], excluded: [] },
    };
    await api('PATCH', `/v1/collections/${id}`, { sync_filters: filters, type_sync: 'one' });
    await ok(await api('POST', `/v1/collections/${id}/start`), 200);
    await waitForStatus(call, token, id, ['synced'], 30_000);
    await exerciseItems(id);
    // a second run, cancelled while it is queued or running (or, if it was quicker, already over: 409 run_ended)
    const started = await ok(await api('POST', `/v1/collections/${id}/start`), 200);
    expect([202, 409]).toContain((await api('POST', `/v1/collections/${id}/runs/${started.run_id}/cancel`)).status);
    await waitForStatus(call, token, id, ['error', 'synced'], 30_000);
  });

  it('pairs, discovers and syncs an edrive (OneDrive) collection', async () => {
    const id = ids.edrive;
    await ok(
      await api('GET', `/v1/collections/authorization_url/edrive?redirect_to=${encodeURIComponent(CB)}&state=s2`),
      200,
    );
    await pair(id, 'edrive');
    const users = await ok(await api('GET', `/v1/collections/${id}/users`), 200);
    const user = users.entries.find((u: Json) => graph.listItems(u.id).length > 0)?.id as string;
    const folders = await ok(
      await api('GET', `/v1/collections/${id}/folders?user_id=${encodeURIComponent(user)}`),
      200,
    );
    await ok(await api('GET', `/v1/collections/${id}/channels?user=x`), 400);
    const filters = {
      [user]: { filter_type: 'user_folders', filter_name: 'all', all_selected: true, selected: [], excluded: [] },
    };
    expect(folders.results.length).toBeGreaterThan(0);
    expect(
      (await api('PATCH', `/v1/collections/${id}`, { sync_filters: filters, sync_status: 'pending' })).status,
    ).toBe(204);
    await waitForStatus(call, token, id, ['synced'], 30_000);
    const item = await exerciseItems(id);
    // a changed file: under a legal hold, the next run keeps the superseded version
    const hold = await ok(
      await api('POST', '/v1/legalhold/holds', { name: 'Keep versions', collection_ids: [id] }),
      201,
    );
    graph.mutate.modifyFile(user, item.source_id as string, Buffer.from('changed for the conformance test'));
    await ok(await api('POST', `/v1/collections/${id}/start`), 200);
    await waitForStatus(call, token, id, ['synced'], 30_000);
    const versions = await ok(await api('GET', `/v1/collections/${id}/items/${item.onna_id}/versions`), 200);
    const version = (versions.versions as Json[])[0];
    expect(
      (await api('GET', `/v1/collections/${id}/items/${item.onna_id}/versions/${version.version_number}/content`))
        .status,
    ).toBe(200);
    expect((await api('DELETE', `/v1/legalhold/holds/${hold.onna_id}`)).status).toBe(204);
  });

  it('streams events, searches, holds, audits and manages webhook endpoints', async () => {
    const controller = new AbortController();
    const res = await fetch(`${t.url}/v1/collections/${ids.conf}/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    const first = await res.body!.getReader().read();
    controller.abort();
    const text = Buffer.from(first.value ?? []).toString('utf8');
    expect(text).toMatch(/^(id|:)/);
    v.check({
      method: 'GET',
      path: `/v1/collections/${ids.conf}/events`,
      query: {},
      requestHeaders: {},
      status: res.status,
      headers: Object.fromEntries(res.headers),
      body: text,
    });
    await ok(
      await call(token, 'GET', `/v1/collections/${ids.conf}/events`, {
        headers: { 'last-event-id': 'abc' },
        invalid: true,
      }),
      400,
    );
    await ok(await api('GET', '/v1/collections/col_unknown/events'), 404);

    await ok(await api('POST', '/v1/search', { query: 'meeting OR document' }), 200);
    await ok(await call(token, 'POST', '/v1/search', { json: {}, invalid: true }), 400);

    const hold = await ok(await api('POST', '/v1/legalhold/holds', { name: 'Hold', collection_ids: [ids.conf] }), 201);
    await ok(await api('GET', '/v1/legalhold/holds'), 200);
    await ok(await api('GET', `/v1/legalhold/holds/${hold.onna_id}`), 200);
    await ok(await api('DELETE', `/v1/collections/${ids.conf}`), 409);
    await ok(await api('DELETE', `/v1/workspaces/${ids.ws}`), 409);
    expect((await api('DELETE', `/v1/legalhold/holds/${hold.onna_id}`)).status).toBe(204);
    await ok(await api('GET', '/v1/legalhold/holds/hold_unknown'), 404);

    await ok(await api('GET', '/v1/audit?limit=20'), 200);

    const endpoint = await ok(
      await api('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/custody', events: ['hold.released'] }),
      201,
    );
    await ok(await api('GET', '/v1/webhook_endpoints'), 200);
    await ok(await api('GET', `/v1/webhook_endpoints/${endpoint.id}`), 200);
    await ok(await api('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries`), 200);
    await ok(
      await call(token, 'POST', '/v1/webhook_endpoints', {
        json: { url: 'https://hooks.example.com/x', events: ['nope'] },
        invalid: true,
      }),
      400,
    );
    expect((await api('DELETE', `/v1/webhook_endpoints/${endpoint.id}`)).status).toBe(204);
  });

  it('receives signed Zoom events and Graph notifications', async () => {
    const zoomPost = (body: string, signed = true, invalid = false) => {
      const ts = String(Math.floor(Date.now() / 1000));
      const signature = `v0=${crypto.createHmac('sha256', ZOOM_SECRET).update(`v0:${ts}:${body}`).digest('hex')}`;
      const headers = {
        'content-type': 'application/json; charset=utf-8',
        'x-zm-request-timestamp': ts,
        'x-zm-signature': signed ? signature : 'v0=00',
      };
      return call(null, 'POST', '/v1/webhooks/zoom', { raw: body, headers, invalid });
    };
    await ok(
      await zoomPost(
        JSON.stringify({ event: 'endpoint.url_validation', event_ts: Date.now(), payload: { plainToken: 'plain' } }),
      ),
      200,
    );
    const event = {
      event: 'recording.completed',
      event_ts: Date.now(),
      payload: { account_id: 'acct', object: { uuid: 'u1', id: 1, host_id: 'h', recording_files: [] } },
    };
    expect((await zoomPost(JSON.stringify(event))).status).toBe(204);
    await ok(await zoomPost(JSON.stringify(event), false), 401);
    await ok(await zoomPost('not json', true, true), 400);

    const validation = await call(null, 'POST', '/v1/webhooks/microsoft?validationToken=abc%20def', {
      raw: '',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
    expect([validation.status, await validation.text()]).toEqual([200, 'abc def']);
    const notifications = {
      value: [{ subscriptionId: 'sub-unknown', clientState: 'x', changeType: 'updated', resource: 'drives/d/root' }],
    };
    expect((await call(null, 'POST', '/v1/webhooks/microsoft', { json: notifications })).status).toBe(202);
    await ok(
      await call(null, 'POST', '/v1/webhooks/microsoft', {
        raw: 'x'.repeat(300 * 1024),
        headers: { 'content-type': 'application/json' },
        invalid: true,
      }),
      413,
    );
  });

  it('exports a collection, verifies the audit chain, serves the signing keys and deletes a wallet', async () => {
    const id = ids.conf;
    await ok(
      await call(token, 'POST', `/v1/collections/${id}/exports`, { json: { chat_format: 'pdf' }, invalid: true }),
      400,
    );
    const created = await ok(
      await api('POST', `/v1/collections/${id}/exports`, { chat_format: 'json', dedupe: 'global' }),
      202,
    );
    let view: Json = {};
    for (let i = 0; i < 300 && !['succeeded', 'failed', 'cancelled'].includes(view.status as string); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      view = await ok(await api('GET', `/v1/collections/${id}/exports/${created.export_id}`), 200);
    }
    expect(view.status).toBe('succeeded');
    await ok(await api('GET', `/v1/collections/${id}/exports`), 200);
    await ok(await api('GET', `/v1/collections/${id}/exports/exp_unknown`), 404);
    const whole = await call(token, 'GET', `/v1/collections/${id}/exports/${created.export_id}/download`);
    expect(whole.status).toBe(200);
    const etag = whole.headers.get('etag')!;
    expect(
      (
        await call(token, 'GET', `/v1/collections/${id}/exports/${created.export_id}/download`, {
          headers: { range: 'bytes=0-3' },
        })
      ).status,
    ).toBe(206);
    expect(
      (
        await call(token, 'GET', `/v1/collections/${id}/exports/${created.export_id}/download`, {
          headers: { 'if-none-match': etag },
        })
      ).status,
    ).toBe(304);
    await ok(await api('POST', `/v1/collections/${id}/exports/${created.export_id}/cancel`), 409);
    const again = await ok(await api('POST', `/v1/collections/${id}/exports`), 202);
    expect([202, 409]).toContain((await api('POST', `/v1/collections/${id}/exports/${again.export_id}/cancel`)).status);

    const keys = await ok(await call(null, 'GET', '/v1/signing-keys'), 200);
    expect(keys.keys.length).toBeGreaterThan(0);
    const verification = await ok(await api('GET', `/v1/audit/verification?collection_id=${id}`), 200);
    expect(verification.valid).toBe(true);

    await ok(await api('DELETE', `/v1/wallet/${ids.wallet_conf}`), 409);
    const spare = (
      await ok(
        await api('POST', '/v1/wallet', { name: 'spare', credential_type_name: 'Datasource', config_type: 'conf' }),
        201,
      )
    ).onna_id;
    expect((await api('DELETE', `/v1/wallet/${spare}`)).status).toBe(204);
    await ok(await api('DELETE', `/v1/wallet/${spare}`), 404);
  });

  it('deletes what it created', async () => {
    expect((await api('DELETE', `/v1/collections/${ids.edrive}`)).status).toBe(204);
    await ok(await api('DELETE', `/v1/collections/${ids.edrive}`), 404);
    expect((await api('DELETE', `/v1/workspaces/${ids.ws}`)).status).toBe(204);
    await ok(await api('GET', `/v1/collections/${ids.conf}`), 404);
  });

  it('found no violation, and exercised every operation of the document', () => {
    expect(v.violations).toEqual([]);
    const unexercised = v.operationIds().filter((id) => !v.seen.has(id));
    expect(unexercised).toEqual([]);
    const neverSucceeded = v.operationIds().filter((id) => ![...(v.seen.get(id) ?? [])].some((s) => s < 400));
    expect(neverSucceeded).toEqual([]);
    // the invalid requests were refused by the service as the document refuses them
    expect(v.refusedInvalid.size).toBeGreaterThan(8);
  });

  /** support/app.ts consentFlow, with our callback's answers checked too: the browser's hops to us go through `call`. */
  async function consent(type: 'conf' | 'edrive'): Promise<URL> {
    const query = new URLSearchParams({ redirect_to: CB, state: `st-${type}` });
    const res = await api('GET', `/v1/collections/authorization_url/${type}?${query}`);
    let next = new URL(res.status === 302 ? res.headers.get('location')! : (await jsonOf(res, 200)).authorization_url);
    for (let hop = 0; hop < 6 && `${next.origin}${next.pathname}` !== CB; hop++) {
      const atProvider = await fetch(next, { redirect: 'manual' });
      const callback = new URL(atProvider.headers.get('location')!);
      const back = await call(null, 'GET', `${callback.pathname}${callback.search}`);
      expect(back.status).toBe(302);
      next = new URL(back.headers.get('location')!);
    }
    return next;
  }

  async function pair(id: string, type: 'conf' | 'edrive') {
    const landed = await consent(type);
    const code = landed.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(
      (await api('POST', `/v1/collections/${id}/pair_credentials?auth_code=${encodeURIComponent(code!)}`)).status,
    ).toBe(204);
  }

  async function exerciseItems(id: string) {
    const page = await ok(await api('GET', `/v1/collections/${id}/items?limit=50`), 200);
    const item = (page.items as Json[]).find((i) => i.sha256 && i.size > 1)!;
    expect(item).toBeDefined();
    await ok(await api('GET', `/v1/collections/${id}/items/${item.onna_id}`), 200);
    const content = `/v1/collections/${id}/items/${item.onna_id}/content`;
    const whole = await api('GET', content);
    expect(whole.status).toBe(200);
    const etag = whole.headers.get('etag')!;
    expect((await call(token, 'GET', content, { headers: { range: 'bytes=0-0' } })).status).toBe(206);
    expect((await call(token, 'GET', content, { headers: { 'if-none-match': etag } })).status).toBe(304);
    await ok(await call(token, 'GET', content, { headers: { 'if-match': '"other"' } }), 412);
    await ok(await call(token, 'GET', content, { headers: { range: `bytes=${item.size + 10}-` } }), 416);
    await ok(await api('GET', `/v1/collections/${id}/items/${item.onna_id}/versions`), 200);
    await ok(await api('GET', `/v1/collections/${id}/items/${item.onna_id}/versions/99/content`), 404);
    await ok(await api('GET', `/v1/collections/${id}/items/it_unknown`), 404);
    const runs = await ok(await api('GET', `/v1/collections/${id}/runs`), 200);
    const runId = runs.runs[0].run_id as string;
    await ok(await api('GET', `/v1/collections/${id}/runs/${runId}`), 200);
    await ok(await api('GET', `/v1/collections/${id}/runs/${runId}/reconciliation`), 200);
    expect(
      (await api('GET', `/v1/collections/${id}/runs/${runId}/reconciliation?format=csv&rows=exceptions`)).status,
    ).toBe(200);
    await ok(await api('POST', `/v1/collections/${id}/runs/${runId}/cancel`), 409);
    await ok(await api('GET', `/v1/collections/${id}/manifest`), 200);
    expect((await api('GET', `/v1/collections/${id}/manifest?format=csv`)).status).toBe(200);
    await ok(await call(token, 'GET', `/v1/collections/${id}/manifest?format=xml`, { invalid: true }), 400);
    return item;
  }
});
