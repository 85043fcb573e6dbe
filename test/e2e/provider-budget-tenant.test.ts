import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { WalletRepo } from '../../src/store/wallets.ts';
import { testDatabases } from '../support/databases.ts';
import { jsonOf, pairFlow, startTestApp, type Json, type TestApp } from '../support/app.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const CB = 'https://client.example/edrive-done';

/**
 * Graph limits an app per tenant (docs/metrics.md): wallets paired with the same Microsoft tenant spend one budget,
 * learned once and shown once; a wallet of another tenant keeps its own.
 */
describe.each(testDatabases)('provider budget per Microsoft tenant ($name)', (database) => {
  let sandbox: MicrosoftSandbox;
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    // One user with a drive of one folder and one file: a run takes a handful of Graph requests.
    sandbox = await startMicrosoftSandbox({
      seed: 12,
      users: 1,
      usersWithoutDrive: 0,
      folderDepth: 1,
      foldersPerLevel: 1,
      filesPerFolder: 1,
    });
    t = await startTestApp({
      database,
      env: microsoftEnv(sandbox),
    });
    token = await t.token('acme', [CB]);
  });

  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  const call = (method: string, path: string, body?: unknown) =>
    t.call(token, method, path, body === undefined ? {} : { json: body });
  const post = async (p: string, json: unknown) => (await jsonOf(await call('POST', p, json), 201)).onna_id as string;

  /** A wallet and a collection of its own, paired through the sandbox's admin consent. */
  const pairedCollection = async (name: string) => {
    const ws = await post('/v1/workspaces', { name: `Matter ${name}`, description: 'edrive' });
    const walletId = await post('/v1/wallet', { name, credential_type_name: 'Datasource', config_type: 'edrive' });
    const collectionId = await post('/v1/collections', {
      name,
      onna_parent_id: ws,
      type: 'edrive',
      credential_id: walletId,
    });
    await pairFlow(t.call, token, collectionId, {
      type: 'edrive',
      redirectTo: CB,
      state: name,
      callbackOrigin: t.url,
    });
    return { walletId, collectionId };
  };

  const syncAndDetail = async (collectionId: string): Promise<Json> => {
    const user = sandbox.tenant.users[0].id;
    const filters = {
      [user]: { all_selected: true, selected: [], excluded: [], filter_type: 'user_folders', filter_name: 'User' },
    };
    const patched = await call('PATCH', `/v1/collections/${collectionId}`, { sync_filters: filters, type_sync: 'one' });
    expect(patched.status).toBe(204);
    expect((await call('POST', `/v1/collections/${collectionId}/start`)).status).toBe(200);
    await t.waitForStatus(token, collectionId, ['synced'], 60_000);
    return runDetail(collectionId);
  };

  const runDetail = async (collectionId: string): Promise<Json> => {
    const runs = (await jsonOf(await call('GET', `/v1/collections/${collectionId}/runs`), 200)).runs as Json[];
    return jsonOf(await call('GET', `/v1/collections/${collectionId}/runs/${runs[0].run_id}`), 200);
  };

  /** The credential labels of the Microsoft lines of the custody_provider_budget_rate gauge. */
  const graphBudgets = async (): Promise<string[]> => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    return [...text.matchAll(/^custody_provider_budget_rate\{provider="microsoft",credential="([^"]*)"\} /gm)]
      .map((m) => m[1])
      .sort();
  };

  it('shares one learned budget between two wallets paired with the same tenant; another tenant keeps its own', async () => {
    const a = await pairedCollection('first');
    const b = await pairedCollection('second');
    expect(a.walletId).not.toBe(b.walletId);
    const tenant = `account:${sandbox.tenantId}`;

    await syncAndDetail(a.collectionId);
    const afterFirst = await graphBudgets();
    expect(afterFirst).toHaveLength(1);
    const second = await syncAndDetail(b.collectionId);
    // One budget for the tenant, whichever wallet spent it: one gauge line, one row in both run details.
    expect(await graphBudgets()).toEqual(afterFirst);
    const first = await runDetail(a.collectionId);
    expect(second.provider_budget).toBeDefined();
    expect(first.provider_budget).toEqual(second.provider_budget);
    // The gauge's credential label names the tenant (docs/metrics.md).
    expect(afterFirst).toEqual([tenant]);

    // A wallet of another tenant (the sandbox's second organisation holds no data: its recorded account is
    // rewritten) spends another budget.
    const c = await pairedCollection('third');
    await new WalletRepo(t.runtime.ctx.db).setProviderAccount(c.walletId, 'another-microsoft-tenant');
    const third = await syncAndDetail(c.collectionId);
    expect(await graphBudgets()).toEqual([tenant, 'account:another-microsoft-tenant'].sort());
    expect(third.provider_budget).toBeDefined();
  }, 120_000);
});
