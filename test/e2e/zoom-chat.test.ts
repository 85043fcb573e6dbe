// Issue 20 through the public API: ZOOM_LOOKBACK_DAYS=365 against a Zoom account whose Team Chat holds history
// beyond six months, external contacts and chat files. The run ends `succeeded`, each owner's reconciliation
// reports the six-month window once as `provider_limit` (not counted in `listed`), and the rest is exactly the oracle.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import { expectedItems, keyOf } from '../connectors/zoom-harness.ts';
import { fetchManifest, jsonOf, newCollection, pairFlow, type Json } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { useZoomApp } from '../support/zoom-app.ts';

const CB = 'https://client.example/zoom-done';
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'Zoom Team Chat beyond six months, through the public API on %s',
  (_name, database) => {
    const z = useZoomApp(
      database,
      {
        seed: 43,
        users: 4,
        meetingsPerUser: 1,
        channels: 2,
        messagesPerChannel: 6,
        messagesPerChat: 5,
        chatExtras: true,
      },
      { callback: CB, env: { ZOOM_LOOKBACK_DAYS: '365' } },
    );
    const { call } = z;

    it('ends succeeded with the window reported once per owner, external conversations and chat files collected with their bytes', async () => {
      const id = await newCollection(z.t.call, z.token, 'conf', 'chat-365');
      await pairFlow(z.t.call, z.token, id, {
        type: 'conf',
        redirectTo: CB,
        state: `client-${id}`,
        callbackOrigin: z.t.url,
      });
      const filters: ConfFilters = {
        account_owners: { all_selected: true, selected: [], excluded: [] },
        content_selections: { all_selected: true, selected: [], excluded: [] },
        chats: { all_selected: true, selected: [], excluded: [] },
      };
      expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: filters, type_sync: 'auto' })).status).toBe(
        204,
      );
      expect((await call('POST', `/v1/collections/${id}/start`)).status).toBe(200);
      const c = await z.t.waitForStatus(z.token, id, ['synced'], 60_000);
      expect(c.latest_run.status).toBe('succeeded');
      expect(c.latest_run.counters.failed).toBe(0);

      const items = await z.t.items(z.token, id);
      const expected = expectedItems(z.sandbox, filters);
      expect(items.map((i) => keyOf(i.kind, i.source_id)).sort()).toEqual([...expected.items.keys()].sort());
      const files = items.filter((i) => i.kind === 'chat_file');
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect(f.sha256, f.source_id).toBe(sha256(z.sandbox.tenant.textBodies.get(f.source_id)!));
      const externalIds = new Set(z.sandbox.tenant.externalContacts.map((x) => x.member_id));
      expect(
        items.some((i) => i.kind === 'chat_message' && externalIds.has(i.metadata.conversation_id as string)),
      ).toBe(true);

      const rec = await jsonOf(
        await call('GET', `/v1/collections/${id}/runs/${c.latest_run.run_id}/reconciliation`),
        200,
      );
      expect(rec.balanced).toBe(true);
      const limits = (rec.custodians as Json[]).flatMap((u) =>
        (u.exceptions as Json[])
          .filter((e) => e.outcome === 'provider_limit' && e.kind === 'chat_history')
          .map((e) => ({ unit: u.custodian, ...e })),
      );
      const owners = (rec.custodians as Json[])
        .filter((u) => u.unit_kind === 'custodian')
        .map((u) => u.custodian as string);
      expect(owners.length).toBeGreaterThan(0);
      // Once per owner (and per channel read through one), nothing else.
      for (const o of owners)
        expect(
          limits.filter((l) => l.unit === o),
          o,
        ).toHaveLength(1);
      expect(new Set(limits.map((l) => l.unit)).size).toBe(limits.length);
      for (const l of limits)
        expect(l).toMatchObject({ kind: 'chat_history', reason: expect.stringMatching(/6 months/) });
      // Not counted: listed = collected + unchanged + excluded + not_present + failed still holds, with 0 failed.
      expect(rec.totals.failed).toBe(0);

      const { json } = await fetchManifest(z.t.call, z.token, id);
      expect(json.counts.without_content).toBe(0);
    });
  },
);
