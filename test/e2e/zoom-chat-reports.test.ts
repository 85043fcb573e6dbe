// Issue 20, `scopes_type=preservation`: with the chat reports' scopes granted, a conf collection of every owner and
// every chat also holds each edit and deletion the reports return (GET /report/chat/sessions/{sessionId} with
// include_fields=edited_messages,deleted_messages), as content, exactly as the oracle says; without them, no report
// is asked for.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ZOOM_REPORT_SCOPES, ZOOM_SANDBOX_SCOPES } from '../../sandbox/zoom/index.ts';
import type { ZoomChatMessage } from '../../sandbox/zoom/tenant.ts';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import { expectedItems, keyOf } from '../connectors/zoom-harness.ts';
import { fetchManifest, jsonOf, newCollection, pairFlow, type Json, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { useZoomApp } from '../support/zoom-app.ts';

const CB = 'https://client.example/zoom-reports';
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const ALL = { all_selected: true, selected: [], excluded: [] };
const everything: ConfFilters = { account_owners: ALL, content_selections: ALL, chats: ALL };

// A look-back beyond the six months the reports serve: their windows are clamped to it, never refused.
const LOOKBACK = { ZOOM_LOOKBACK_DAYS: '365' };
const shape = { users: 4, meetingsPerUser: 1, channels: 2, messagesPerChannel: 14, messagesPerChat: 12 };

/** Pairs a new collection of everything, runs it to the end and returns its id and latest run. */
async function collectEverything(t: TestApp, token: string, name: string): Promise<{ id: string; c: Json }> {
  const id = await newCollection(t.call, token, 'conf', name);
  await pairFlow(t.call, token, id, { type: 'conf', redirectTo: CB, state: `client-${id}`, callbackOrigin: t.url });
  const patch = await t.call(token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: everything } });
  expect(patch.status).toBe(204);
  expect((await t.call(token, 'POST', `/v1/collections/${id}/start`)).status).toBe(200);
  return { id, c: await t.waitForStatus(token, id, ['synced'], 60_000) };
}

describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'Zoom chat reports: edited and deleted messages, through the public API on %s',
  (_name, database) => {
    const reports = useZoomApp(
      database,
      { seed: 47, ...shape, chatExtras: true, scopes: [...ZOOM_SANDBOX_SCOPES, ...ZOOM_REPORT_SCOPES] },
      { callback: CB, env: LOOKBACK },
    );
    const plainApp = useZoomApp(database, { seed: 47, ...shape, chatExtras: true }, { callback: CB, env: LOOKBACK });

    it('collects every edit and deletion the reports return, as content, exactly the oracle', async () => {
      const { sandbox, t, token } = reports;
      const { id, c } = await collectEverything(t, token, 'reports');
      expect(c.latest_run.status).toBe('succeeded');
      expect(c.latest_run.counters.failed).toBe(0);

      const items = await t.items(token, id);
      const expected = expectedItems(sandbox, everything, { reports: true });
      expect(items.map((i) => keyOf(i.kind, i.source_id)).sort()).toEqual([...expected.items.keys()].sort());

      // The sandbox's ground truth of every edited or deleted message, by id.
      const truth = new Map<string, ZoomChatMessage>();
      for (const list of [
        ...sandbox.tenant.oneToOne.map((x) => x.messages),
        ...Object.values(sandbox.tenant.channelMessages),
      ])
        for (const m of list) if (m.status !== 'Normal') truth.set(m.id, m);
      const reported = items.filter((i) => i.metadata.report_field !== undefined);
      const edits = reported.filter((i) => i.metadata.edited === true);
      const deletions = reported.filter((i) => i.metadata.deleted === true);
      expect(edits.length).toBeGreaterThan(0);
      expect(deletions.length).toBeGreaterThan(0);
      expect(reported.some((i) => i.kind === 'channel_message')).toBe(true);
      expect(reported.some((i) => i.kind === 'chat_message')).toBe(true);
      for (const item of reported) {
        const m = truth.get(item.metadata.parent_source_id as string);
        expect(m, item.source_id).toBeDefined();
        const res = await t.call(token, 'GET', `/v1/collections/${id}/items/${item.onna_id}/content`);
        expect(res.status).toBe(200);
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(sha256(bytes), item.source_id).toBe(item.sha256);
        const record = JSON.parse(bytes.toString('utf8')) as Json;
        // An edit keeps the text it replaced; a deletion the text that was deleted; both say when.
        expect(record.id).toBe(m!.id);
        expect(record.action_timestamp).toBe(m!.actionAt);
        if (item.metadata.edited) {
          expect(m!.status).toBe('Edited');
          expect(record.message).toBe(m!.originalMessage);
          expect(item.metadata.report_field).toBe('edited_messages');
        } else {
          expect(m!.status).toBe('Deleted');
          expect(record.message).toBe(m!.message);
          expect(item.metadata.report_field).toBe('deleted_messages');
        }
        // A channel's edits and deletions belong to the channel's unit, like its messages; the others to an owner.
        if (item.kind === 'channel_message') expect(item.custodian).toBe(item.metadata.conversation_id);
        else expect(expected.owners).toContain(item.custodian);
        // Download URLs keep no query string in a record.
        for (const f of (record.files as Json[] | undefined) ?? []) expect(f.download_url).not.toContain('?');
      }

      // The account's sessions are listed once per run (each month window once), not once per owner.
      const lists = sandbox.requests.filter(
        (r) => r.listener === 'main' && r.path.startsWith('/v2/report/chat/sessions?'),
      );
      expect(lists.length).toBeGreaterThan(0);
      expect(new Set(lists.map((r) => new URL(r.path, 'http://x').searchParams.get('from'))).size).toBe(lists.length);

      const rec = await jsonOf(
        await t.call(token, 'GET', `/v1/collections/${id}/runs/${c.latest_run.run_id}/reconciliation`),
        200,
      );
      expect(rec.balanced).toBe(true);
      const { json } = await fetchManifest(t.call, token, id);
      expect(json.counts.without_content).toBe(0);
    });

    it('a grant without the reports and legal-hold scopes asks for neither and collects none of their items', async () => {
      const { sandbox: plain, t: tPlain, token: plainToken } = plainApp;
      const { id, c } = await collectEverything(tPlain, plainToken, 'no reports');
      expect(c.latest_run.status).toBe('succeeded');
      expect(
        plain.requests.filter((r) => r.path.startsWith('/v2/report/') || r.path.startsWith('/v2/chat/legalhold')),
      ).toEqual([]);
      const items = await tPlain.items(plainToken, id);
      expect(items.map((i) => keyOf(i.kind, i.source_id)).sort()).toEqual(
        [...expectedItems(plain, everything).items.keys()].sort(),
      );
    });
  },
);
