import { describe, expect, it } from 'vitest';
import { WalletRepo } from '../../src/store/wallets.ts';
import { testDatabases } from '../support/databases.ts';
import { jsonOf, pairFlow, type Json } from '../support/app.ts';
import { useZoomApp } from '../support/zoom-app.ts';

const CB = 'https://client.example/zoom-done';
const LIMIT = 10;
const FILTERS = {
  account_owners: { all_selected: true, selected: [], excluded: [] },
  content_selections: { all_selected: true, selected: [], excluded: [] },
  chats: { all_selected: true, selected: [], excluded: [] },
};

/**
 * Zoom limits requests per account, for every app and user of it (zoom-api.md §3): wallets paired with the same
 * Zoom account spend one budget, learned once and shown once; a wallet of another account keeps its own.
 */
describe.each(testDatabases)('provider budget per Zoom account ($name)', (database) => {
  const z = useZoomApp(
    database,
    {
      seed: 11,
      users: 2,
      meetingsPerUser: 2,
      channels: 1,
      messagesPerChannel: 3,
      messagesPerChat: 2,
      rateLimits: { light: LIMIT, medium: LIMIT, heavy: LIMIT },
    },
    { callback: CB },
  );
  const call = (method: string, path: string, body?: unknown) => z.call(method, path, body);
  const post = async (p: string, json: unknown) => (await jsonOf(await call('POST', p, json), 201)).onna_id as string;

  /** A wallet and a collection of its own, paired through the sandbox's consent. */
  const pairedCollection = async (name: string) => {
    const ws = await post('/v1/workspaces', { name: `Matter ${name}`, description: 'conf' });
    const walletId = await post('/v1/wallet', { name, credential_type_name: 'Datasource', config_type: 'conf' });
    const collectionId = await post('/v1/collections', {
      name,
      onna_parent_id: ws,
      type: 'conf',
      credential_id: walletId,
    });
    await pairFlow(z.t.call, z.token, collectionId, {
      type: 'conf',
      redirectTo: CB,
      state: name,
      callbackOrigin: z.t.url,
    });
    return { walletId, collectionId };
  };

  const syncAndDetail = async (collectionId: string): Promise<Json> => {
    const patched = await call('PATCH', `/v1/collections/${collectionId}`, { sync_filters: FILTERS, type_sync: 'one' });
    expect(patched.status).toBe(204);
    expect((await call('POST', `/v1/collections/${collectionId}/start`)).status).toBe(200);
    await z.t.waitForStatus(z.token, collectionId, ['synced'], 60_000);
    return runDetail(collectionId);
  };

  const runDetail = async (collectionId: string): Promise<Json> => {
    const runs = (await jsonOf(await call('GET', `/v1/collections/${collectionId}/runs`), 200)).runs as Json[];
    return jsonOf(await call('GET', `/v1/collections/${collectionId}/runs/${runs[0].run_id}`), 200);
  };

  /** The credential labels of the Zoom lines of the custody_provider_budget_rate gauge. */
  const zoomBudgets = async (): Promise<string[]> => {
    const text = await (await fetch(`${z.t.url}/metrics`)).text();
    return [...text.matchAll(/^custody_provider_budget_rate\{provider="zoom",credential="([^"]*)"\} /gm)]
      .map((m) => m[1])
      .sort();
  };

  it('shares one learned budget between two wallets paired with the same account; another account keeps its own', async () => {
    const a = await pairedCollection('first');
    const b = await pairedCollection('second');
    expect(a.walletId).not.toBe(b.walletId);
    const account = `account:${z.sandbox.tenant.accountId}`;

    await syncAndDetail(a.collectionId);
    const afterFirst = await zoomBudgets();
    expect(afterFirst).toHaveLength(1);
    const second = await syncAndDetail(b.collectionId);
    // One budget for the account, whichever wallet spent it: one gauge line, one row in both run details.
    expect(await zoomBudgets()).toEqual(afterFirst);
    const first = await runDetail(a.collectionId);
    expect(second.provider_budget).toBeDefined();
    expect(first.provider_budget).toEqual(second.provider_budget);
    // The gauge's credential label names the account (docs/metrics.md).
    expect(afterFirst).toEqual([account]);

    // A wallet of another Zoom account (the sandbox has one: its recorded account is rewritten) spends another budget.
    const c = await pairedCollection('third');
    await new WalletRepo(z.t.runtime.ctx.db).setProviderAccount(c.walletId, 'another-zoom-account');
    const third = await syncAndDetail(c.collectionId);
    expect(await zoomBudgets()).toEqual([account, 'account:another-zoom-account'].sort());
    expect(third.provider_budget).toBeDefined();
  }, 120_000);
});
