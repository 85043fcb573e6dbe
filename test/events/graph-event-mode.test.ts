import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollingIntervalMinutes } from '../../src/connectors/onedrive/event-mode.ts';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { createSubscriptionManager } from '../../src/sync/events/subscription-manager.ts';
import { jsonOf, newCollection, pairFlow, startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const CB = 'https://client.example/edrive-done';
const allFolders = (name: string) => ({
  all_selected: true,
  selected: [],
  excluded: [],
  filter_type: 'user_folders',
  filter_name: name,
});
/** Graph's permission table: driveItem (OneDrive for Business) subscriptions need Files.ReadWrite.All (Correction G1). */

describe('polling interval sized to the tenant budget', () => {
  it('spends a small share of the budget: 20 RU/s polls 300 drives every 5 minutes and 3,000 every 50; never under 5 minutes', () => {
    expect(pollingIntervalMinutes(300, 20)).toBe(5);
    expect(pollingIntervalMinutes(3000, 20)).toBe(50);
    expect(pollingIntervalMinutes(3000, 200)).toBe(5);
    expect(pollingIntervalMinutes(1, 20)).toBe(5);
  });
});

/** The app-only token's roles decide between drive subscriptions and polling; nothing is tried that Graph refuses. */
describe.each(testDatabases.map((d) => [d.name, d] as const))('OneDrive event mode on %s', (_name, database) => {
  const setups: Array<{ sandbox: MicrosoftSandbox; t: TestApp; token: string; id: string }> = [];

  async function setup(opts: { roles?: string[]; env?: Record<string, string> }) {
    const sandbox = await startMicrosoftSandbox({
      seed: 6,
      users: 2,
      usersWithoutDrive: 0,
      folderDepth: 1,
      filesPerFolder: 1,
    });
    if (opts.roles) sandbox.appRoles = opts.roles;
    const t = await startTestApp({
      database,
      env: {
        ...microsoftEnv(sandbox),
        ...opts.env,
      },
    });
    t.config.publicUrl = t.url;
    const token = await t.token('acme', [CB]);
    const id = await newCollection(t.call, token, 'edrive', 'drives');
    await pairFlow(t.call, token, id, { type: 'edrive', redirectTo: CB, state: 'e1', callbackOrigin: t.url });
    const [alice, bob] = sandbox.tenant.users.map((u) => u.id) as [string, string];
    const patch = { type_sync: 'auto', sync_filters: { [alice]: allFolders('Alice'), [bob]: allFolders('Bob') } };
    expect((await t.call(token, 'PATCH', `/v1/collections/${id}`, { json: patch })).status).toBe(204);
    const s = { sandbox, t, token, id };
    setups.push(s);
    return s;
  }
  const manager = (t: TestApp) =>
    createSubscriptionManager({
      db: t.runtime.ctx.db,
      sealer: t.runtime.ctx.sealer,
      connectors: t.runtime.ctx.connectors,
      sessions: t.runtime.ctx.providers,
      log: pino({ level: 'silent' }),
      clock: () => new Date(),
      notificationUrl: () => `${t.url}/v1/webhooks/microsoft`,
      lifetimeMinutes: 42_300,
    });
  const posts = (sandbox: MicrosoftSandbox) =>
    sandbox.requests.filter((r) => r.method === 'POST' && /\/subscriptions$/.test(r.path.split('?')[0])).length;
  let readOnly: Awaited<ReturnType<typeof setup>>;
  let writable: Awaited<ReturnType<typeof setup>>;
  let off: Awaited<ReturnType<typeof setup>>;

  beforeAll(async () => {
    readOnly = await setup({ roles: ['Files.Read.All', 'User.Read.All'] });
    writable = await setup({});
    off = await setup({ env: { MS_CHANGE_NOTIFICATIONS: 'off' } });
  });
  afterAll(async () => {
    for (const s of setups) {
      await s.t.close();
      await s.sandbox.close();
    }
  });

  it('the sandbox refuses a drive subscription from an app without Files.ReadWrite.All, as Graph does', async () => {
    const grant = await readOnly.t.runtime.ctx.providers.open(
      {
        id: readOnly.id,
        wallet_id: (await jsonOf(await readOnly.t.call(readOnly.token, 'GET', `/v1/collections/${readOnly.id}`), 200))
          .credential_id,
      },
      readOnly.t.runtime.ctx.connectors.get('edrive')!,
    );
    expect(grant.grantInfo.roles).toEqual(['Files.Read.All', 'User.Read.All']);
    const refused = await grant.http
      .json(`${readOnly.sandbox.graphUrl}/subscriptions`, {
        method: 'POST',
        body: {
          changeType: 'updated',
          notificationUrl: `${readOnly.t.url}/v1/webhooks/microsoft`,
          resource: `/users/${readOnly.sandbox.tenant.users[0].id}/drive/root`,
          expirationDateTime: new Date(Date.now() + 3600_000).toISOString(),
        },
      })
      .then(
        () => null,
        (e: { status?: number }) => e.status,
      );
    expect(refused).toBe(403);
  });

  it('without the permission: no subscription is attempted and the collection shows polling with its interval', async () => {
    const before = posts(readOnly.sandbox);
    expect(Object.values(await manager(readOnly.t).tick())).toEqual(['polling', 'polling']);
    expect(posts(readOnly.sandbox)).toBe(before);
    const c = await jsonOf(await readOnly.t.call(readOnly.token, 'GET', `/v1/collections/${readOnly.id}`), 200);
    expect(c.event_mode).toBe('polling');
    expect(c.polling_interval_minutes).toBe(pollingIntervalMinutes(2, 20));
  });

  it('with it: subscriptions as before, and the collection shows subscription', async () => {
    expect(Object.values(await manager(writable.t).tick())).toEqual(['created', 'created']);
    expect(writable.sandbox.subscriptions.list()).toHaveLength(2);
    const c = await jsonOf(await writable.t.call(writable.token, 'GET', `/v1/collections/${writable.id}`), 200);
    expect(c.event_mode).toBe('subscription');
    expect(c.polling_interval_minutes).toBeUndefined();
  });

  it('MS_CHANGE_NOTIFICATIONS=off forces polling even with the permission', async () => {
    const before = posts(off.sandbox);
    expect(Object.values(await manager(off.t).tick())).toEqual(['polling', 'polling']);
    expect(posts(off.sandbox)).toBe(before);
    const c = await jsonOf(await off.t.call(off.token, 'GET', `/v1/collections/${off.id}`), 200);
    expect(c.event_mode).toBe('polling');
  });
});
