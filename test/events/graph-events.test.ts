import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { createSubscriptionManager } from '../../src/sync/events/subscription-manager.ts';
import { jsonOf, newCollection, pairFlow, startTestApp, type Json, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const CB = 'https://client.example/edrive-done';
const MINUTE = 60_000;

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const allFolders = (name: string) => ({
  all_selected: true,
  selected: [],
  excluded: [],
  filter_type: 'user_folders',
  filter_name: name,
});

/** Graph subscriptions kept by Custody, notifications → delta event runs; a shared clock drives renewals. */
describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'Graph change notifications end to end on %s',
  (_name, database) => {
    let sandbox: MicrosoftSandbox;
    let t: TestApp;
    let token: string;
    let first: string;
    let second: string;
    let alice: string;
    let bob: string;
    let offsetMs = 0;
    const clock = () => new Date(Date.now() + offsetMs);
    const call = (method: string, path: string, body?: unknown) =>
      t.call(token, method, path, body === undefined ? {} : { json: body });
    const runsOf = async (id: string) =>
      (await jsonOf(await call('GET', `/v1/collections/${id}/runs?limit=200`), 200)).runs as Json[];
    const rootOf = (userId: string) => sandbox.listItems(userId)[0].id;
    const manager = () =>
      createSubscriptionManager({
        db: t.runtime.ctx.db,
        sealer: t.runtime.ctx.sealer,
        connectors: t.runtime.ctx.connectors,
        sessions: t.runtime.ctx.providers,
        log: pino({ level: 'silent' }),
        clock,
        notificationUrl: () => `${t.url}/v1/webhooks/microsoft`,
        lifetimeMinutes: 42_300,
      });

    beforeAll(async () => {
      sandbox = await startMicrosoftSandbox({
        seed: 5,
        users: 3,
        usersWithoutDrive: 0,
        now: clock,
        folderDepth: 1,
        filesPerFolder: 1,
      });
      [alice, bob] = sandbox.tenant.users.map((u) => u.id) as [string, string];
      t = await startTestApp({
        database,
        env: {
          ...microsoftEnv(sandbox),
          EVENT_COALESCE_SECONDS: '0.5',
        },
      });
      t.config.publicUrl = t.url;
      token = await t.token('acme', [CB]);
      first = await newCollection(t.call, token, 'edrive', 'drives');
      await pairFlow(t.call, token, first, { type: 'edrive', redirectTo: CB, state: 'e1', callbackOrigin: t.url });
      const patch = {
        type_sync: 'auto',
        sync_status: 'pending',
        sync_filters: { [alice]: allFolders('Alice'), [bob]: allFolders('Bob') },
      };
      expect((await call('PATCH', `/v1/collections/${first}`, patch)).status).toBe(204);
      await t.waitForStatus(token, first, ['synced'], 60_000);
    });

    afterAll(async () => {
      await t?.close();
      await sandbox?.close();
    });

    it('creates one subscription per selected drive, on the drive root, validated, within the maximum expiry', async () => {
      const outcome = await manager().tick();
      expect(Object.values(outcome).sort()).toEqual(['created', 'created']);
      const subs = sandbox.subscriptions.list();
      expect(subs.map((s) => s.resource).sort()).toEqual(
        [`/users/${alice}/drive/root`, `/users/${bob}/drive/root`].sort(),
      );
      for (const s of subs) {
        expect(s.changeType).toBe('updated');
        expect(s.notificationUrl).toBe(`${t.url}/v1/webhooks/microsoft`);
        expect(s.clientState).toMatch(/^[A-Za-z0-9_-]{32,128}$/);
        expect(Date.parse(s.expirationDateTime)).toBeLessThanOrEqual(clock().getTime() + 42_300 * MINUTE);
      }
      // the clientState is kept sealed, never in clear
      const rows = await t.runtime.ctx.db.selectFrom('graph_subscriptions').selectAll().execute();
      for (const r of rows) expect(subs.some((s) => r.sealed_client_state.includes(s.clientState!))).toBe(false);
      // a second collection selecting the same drive shares its subscription
      second = await newCollection(t.call, token, 'edrive', 'alice-only');
      const wallet = (await jsonOf(await call('GET', `/v1/collections/${first}`), 200)).credential_id as string;
      await t.runtime.ctx.db
        .updateTable('collections')
        .set({
          wallet_id: wallet,
          type_sync: 'arch',
          sync_filters: JSON.stringify({ [alice]: allFolders('A') }),
          sync_status: 'synced',
          // As its last run would have left it. Synced with no next run planned, it is due: the next sweep queues a
          // full run, which may take the next test's new file before the notification's run (then queued after it).
          next_sync_at: new Date(Date.now() + 60 * MINUTE).toISOString(),
        })
        .where('id', '=', second)
        .execute();
      expect(Object.values(await manager().tick()).sort()).toEqual(['kept', 'kept']);
      expect(sandbox.subscriptions.list()).toHaveLength(2);
    });

    it('runs the drive delta for each collection selecting it when a notification arrives, even duplicated and out of order', async () => {
      sandbox.subscriptions.faults.duplicates = 2;
      const file = sandbox.mutate.addFile(
        alice,
        rootOf(alice),
        'evidence.txt',
        Buffer.from('written at 09:00, deleted at 09:05'),
      );
      // The file alone does not say the notification ran: items show while a run is still going, and marks that
      // ripen while another run of the collection is active wait for its end (src/sync/events/provider-events.ts).
      const collectedByEvent = async (id: string) =>
        (await t.items(token, id)).some((i) => i.source_id === file.id) &&
        (await runsOf(id)).some((r) => r.trigger === 'event' && !['queued', 'running'].includes(r.status as string));
      await until(
        'the new file in both collections, and an event run of each that ended',
        async () => (await collectedByEvent(first)) && (await collectedByEvent(second)),
      );
      sandbox.subscriptions.faults.duplicates = 0;
      for (const id of [first, second]) {
        const events = (await runsOf(id)).filter((r) => r.trigger === 'event');
        expect(events.length).toBeGreaterThanOrEqual(1);
        for (const r of events) expect(r.custodians).toEqual([alice]);
        expect(events.some((r) => r.status === 'succeeded')).toBe(true);
        const got = await t.items(token, id);
        expect(new Set(got.map((i) => i.source_id)).size).toBe(got.length);
      }
      const notes = (await t.runtime.ctx.db.selectFrom('provider_events').selectAll().execute()).filter(
        (r) => r.provider === 'microsoft',
      );
      expect(notes.reduce((n, r) => n + r.deliveries, 0)).toBe(3 * notes.length);

      sandbox.subscriptions.faults.outOfOrder = true;
      const a = sandbox.mutate.addFile(bob, rootOf(bob), 'one.txt');
      const b = sandbox.mutate.addFile(bob, rootOf(bob), 'two.txt');
      await new Promise((r) => setTimeout(r, 50));
      expect(await sandbox.subscriptions.release()).toBeGreaterThan(0);
      sandbox.subscriptions.faults.outOfOrder = false;
      await until('both files', async () => {
        const got = await t.items(token, first);
        return got.some((i) => i.source_id === a.id) && got.some((i) => i.source_id === b.id);
      });
      expect((await t.items(token, second)).some((i) => i.custodian === bob)).toBe(false);
    });

    it('ignores notifications whose clientState does not match', async () => {
      const sub = sandbox.subscriptions.list()[0];
      const before = await t.runtime.ctx.db.selectFrom('provider_events').selectAll().execute();
      const res = await fetch(`${t.url}/v1/webhooks/microsoft`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          value: [
            {
              subscriptionId: sub.id,
              clientState: 'forged',
              changeType: 'updated',
              resource: sub.resource,
              tenantId: sandbox.tenantId,
            },
          ],
        }),
      });
      expect(res.status).toBe(202);
      expect(await t.runtime.ctx.db.selectFrom('provider_events').selectAll().execute()).toHaveLength(before.length);
    });

    it('renews at half-life, re-creates a lost subscription, and deletes those no filter needs (injected clock)', async () => {
      const m = manager();
      offsetMs += 10 * 24 * 60 * MINUTE;
      expect(Object.values(await m.tick()).sort()).toEqual(['kept', 'kept']);
      offsetMs += 6 * 24 * 60 * MINUTE; // past half of 42,300 minutes
      const before = new Map(sandbox.subscriptions.list().map((s) => [s.id, s.expirationDateTime]));
      expect(Object.values(await m.tick()).sort()).toEqual(['renewed', 'renewed']);
      for (const s of sandbox.subscriptions.list()) {
        expect(Date.parse(s.expirationDateTime)).toBeGreaterThan(Date.parse(before.get(s.id)!));
        expect(Date.parse(s.expirationDateTime)).toBeLessThanOrEqual(clock().getTime() + 42_300 * MINUTE);
      }

      const lost = sandbox.subscriptions.list().find((s) => s.resource.includes(bob))!;
      sandbox.subscriptions.lose(lost.id);
      offsetMs += 16 * 24 * 60 * MINUTE;
      const outcome = await m.tick();
      expect(Object.entries(outcome).find(([k]) => k.endsWith(bob))![1]).toBe('recreated');
      const recreated = sandbox.subscriptions.list().find((s) => s.resource.includes(bob))!;
      expect(recreated.id).not.toBe(lost.id);
      // a re-created subscription may have missed changes: the drive's delta is queued
      expect(
        (await t.runtime.ctx.db.selectFrom('event_targets').selectAll().execute()).some((r) => r.custodian === bob),
      ).toBe(true);

      expect(
        (await call('PATCH', `/v1/collections/${first}`, { sync_filters: { [alice]: allFolders('Alice') } })).status,
      ).toBe(204);
      const after = await m.tick();
      expect(Object.entries(after).find(([k]) => k.endsWith(bob))![1]).toBe('deleted');
      expect(sandbox.subscriptions.list().map((s) => s.resource)).toEqual([`/users/${alice}/drive/root`]);
    });
  },
);
