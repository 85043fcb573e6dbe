import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { jsonOf, pairFlow, startTestApp, type Json, type TestApp } from '../support/app.ts';

const CB = 'https://client.example/zoom-done';
// The account's limit in the sandbox, far below the connector's default budget (48 requests/s).
const LIMIT = 10;
const DEFAULT_RATE = 48;

/**
 * The learned budget through the public API: a run against a Zoom account limited to 10 requests/s learns the
 * limit from Zoom's 429s, and the run detail and the gauge show the same learned rate for the wallet.
 */
describe('learned provider budget in the run detail and the gauge', () => {
  let sandbox: ZoomSandbox;
  let t: TestApp;
  let token: string;
  let collectionId: string;
  let walletId: string;
  const call = (method: string, path: string, body?: unknown) =>
    t.call(token, method, path, body === undefined ? {} : { json: body });

  beforeAll(async () => {
    sandbox = await startZoomSandbox({
      seed: 7,
      users: 2,
      meetingsPerUser: 2,
      channels: 1,
      messagesPerChannel: 3,
      messagesPerChat: 2,
      rateLimits: { light: LIMIT, medium: LIMIT, heavy: LIMIT },
    });
    t = await startTestApp({
      env: {
        ZOOM_CLIENT_ID: sandbox.clientId,
        ZOOM_CLIENT_SECRET: sandbox.clientSecret,
        ZOOM_OAUTH_URL: sandbox.oauthUrl,
        ZOOM_API_URL: sandbox.apiUrl,
      },
    });
    token = await t.token('acme', [CB]);
    const post = async (p: string, json: unknown) => (await jsonOf(await call('POST', p, json), 201)).onna_id as string;
    const ws = await post('/v1/workspaces', { name: 'Matter budget', description: 'conf' });
    walletId = await post('/v1/wallet', { name: 'budget', credential_type_name: 'Datasource', config_type: 'conf' });
    collectionId = await post('/v1/collections', {
      name: 'budget',
      onna_parent_id: ws,
      type: 'conf',
      credential_id: walletId,
    });
    await pairFlow(t.call, token, collectionId, {
      type: 'conf',
      redirectTo: CB,
      state: 'budget',
      callbackOrigin: t.url,
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  it('shows the rate learned from a low provider limit, below the default, in the run detail and the gauge', async () => {
    const filters = {
      account_owners: { all_selected: true, selected: [], excluded: [] },
      content_selections: { all_selected: true, selected: [], excluded: [] },
      chats: { all_selected: true, selected: [], excluded: [] },
    };
    expect(
      (await call('PATCH', `/v1/collections/${collectionId}`, { sync_filters: filters, type_sync: 'arch' })).status,
    ).toBe(204);
    expect((await call('POST', `/v1/collections/${collectionId}/start`)).status).toBe(200);
    await t.waitForStatus(token, collectionId, ['synced'], 60_000);
    const runs = (await jsonOf(await call('GET', `/v1/collections/${collectionId}/runs`), 200)).runs as Json[];
    expect(runs).toHaveLength(1);
    const run = await jsonOf(await call('GET', `/v1/collections/${collectionId}/runs/${runs[0].run_id}`), 200);
    expect(run.run_id).toBe(runs[0].run_id);
    expect(run.status).toBe('succeeded');
    expect(run.counters).toEqual(runs[0].counters);

    const budget = run.provider_budget as Json;
    expect(budget.provider).toBe('zoom');
    // Zoom stated its 10/s in X-RateLimit-Limit on a QPS 429: the ceiling is that limit less 5 % headroom.
    expect(budget.ceiling_per_second).toBeCloseTo(LIMIT * 0.95, 6);
    expect(budget.operator_ceiling_per_second).toBeNull();
    expect(budget.rate_per_second).toBeGreaterThan(0);
    expect(budget.rate_per_second).toBeLessThanOrEqual(LIMIT * 0.95 + 1e-9);
    expect(budget.rate_per_second).toBeLessThan(DEFAULT_RATE);
    expect(Number.isNaN(Date.parse(budget.learned_at))).toBe(false);
    expect(JSON.stringify(run)).not.toMatch(/token|secret/i);

    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    const line = metrics
      .split('\n')
      .find((l) =>
        l.startsWith(`custody_provider_budget_rate{provider="zoom",credential="account:${sandbox.tenant.accountId}"} `),
      );
    expect(line, metrics).toBeDefined();
    expect(Number(line!.split(' ')[1])).toBe(budget.rate_per_second);
  }, 90_000);

  it('answers 404 in the one error shape for a run of another collection or an unknown run', async () => {
    const missing = await call('GET', `/v1/collections/${collectionId}/runs/no-such-run`);
    expect(missing.status).toBe(404);
    expect((await missing.json()) as Json).toMatchObject({ code: '00404_not_found' });
    const otherToken = await t.token('other-account');
    const runs = (await jsonOf(await call('GET', `/v1/collections/${collectionId}/runs`), 200)).runs as Json[];
    const foreign = await t.call(otherToken, 'GET', `/v1/collections/${collectionId}/runs/${runs[0].run_id}`, {});
    expect(foreign.status).toBe(404);
  });
});
