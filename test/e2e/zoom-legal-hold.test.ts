// Issue 20, `scopes_type=preservation`: with the Team Chat legal-hold scopes granted, a conf collection of every owner
// and every chat also holds each selected owner's exports in the matters that hold them, with their bytes, exactly
// as the oracle says; an export still being prepared is reported (and taken by a later run), not silently skipped.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ZOOM_LEGAL_HOLD_SCOPES, ZOOM_SANDBOX_SCOPES } from '../../sandbox/zoom/index.ts';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import { expectedItems, keyOf } from '../connectors/zoom-harness.ts';
import { jsonOf, newCollection, pairFlow, type Json } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { useZoomApp } from '../support/zoom-app.ts';

const CB = 'https://client.example/zoom-legal-hold';
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const ALL = { all_selected: true, selected: [], excluded: [] };
const everything: ConfFilters = { account_owners: ALL, content_selections: ALL, chats: ALL };

describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'Zoom Team Chat legal-hold files, through the public API on %s',
  (_name, database) => {
    const z = useZoomApp(
      database,
      {
        seed: 53,
        users: 4,
        meetingsPerUser: 1,
        channels: 1,
        messagesPerChannel: 3,
        messagesPerChat: 3,
        chatExtras: true,
        scopes: [...ZOOM_SANDBOX_SCOPES, ...ZOOM_LEGAL_HOLD_SCOPES],
      },
      { callback: CB },
    );
    const { call } = z;

    it("collects every ready export of the selected owners' matters with its bytes, and reports the one not ready", async () => {
      const id = await newCollection(z.t.call, z.token, 'conf', 'legal hold');
      await pairFlow(z.t.call, z.token, id, {
        type: 'conf',
        redirectTo: CB,
        state: `c-${id}`,
        callbackOrigin: z.t.url,
      });
      expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: everything })).status).toBe(204);
      expect((await call('POST', `/v1/collections/${id}/start`)).status).toBe(200);
      const c = await z.t.waitForStatus(z.token, id, ['synced'], 60_000);

      const items = await z.t.items(z.token, id);
      const expected = expectedItems(z.sandbox, everything, { legalHold: true });
      expect(items.map((i) => keyOf(i.kind, i.source_id)).sort()).toEqual([...expected.items.keys()].sort());
      const held = items.filter((i) => i.kind === 'legal_hold_file');
      expect(held.length).toBeGreaterThan(1);
      for (const item of held) {
        expect(item.sha256, item.source_id).toBe(expected.items.get(keyOf(item.kind, item.source_id)));
        expect(item.mime_type).toBe('application/zip');
        const matter = z.sandbox.tenant.legalHoldMatters.find((m) => m.matter_id === item.metadata.matter_id);
        expect(matter?.userIds).toContain(item.custodian);
        const res = await call('GET', `/v1/collections/${id}/items/${item.onna_id}/content`);
        expect(res.status).toBe(200);
        expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(item.sha256);
      }

      // The account's matters are listed once for the run, not once per owner.
      expect(z.sandbox.requests.filter((r) => r.path.startsWith('/v2/chat/legalhold/matters?'))).toHaveLength(1);

      // The export Zoom is still preparing: one failed exception naming it, so the run does not read as complete.
      const notReady = z.sandbox.tenant.legalHoldMatters.flatMap((m) =>
        m.files.filter((f) => !f.ready_for_download).map((f) => `${m.matter_id}|${f.file_key}`),
      );
      expect(notReady).toHaveLength(1);
      expect(c.latest_run.status).toBe('completed_with_errors');
      const rec = await jsonOf(
        await call('GET', `/v1/collections/${id}/runs/${c.latest_run.run_id}/reconciliation`),
        200,
      );
      expect(rec.balanced).toBe(true);
      const failed = (rec.custodians as Json[]).flatMap((u) =>
        (u.exceptions as Json[]).filter((e) => e.outcome === 'failed'),
      );
      expect(failed).toEqual([
        expect.objectContaining({
          kind: 'legal_hold_file',
          source_id: notReady[0],
          reason: expect.stringMatching(/not ready/),
        }),
      ]);
    });
  },
);
