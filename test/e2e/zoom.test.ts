import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import { confOracle } from '../completeness/oracle.ts';
import { expectedItems, keyOf } from '../connectors/zoom-harness.ts';
import {
  fetchManifest,
  jsonOf,
  newCollection,
  pairFlow,
  startTestApp,
  type ApiItem,
  type Json,
  type TestApp,
} from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const CB = 'https://client.example/zoom-done';
const hash = (algorithm: string, b: Buffer) => crypto.createHash(algorithm).update(b).digest('hex');

/** The real runtime (background workers on) against the Zoom sandbox: runs are started over HTTP and polled. */
describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'Zoom end to end through the public API on %s',
  (_name, database) => {
    let sandbox: ZoomSandbox;
    let t: TestApp;
    let token: string;

    const call = (method: string, path: string, body?: unknown) =>
      t.call(token, method, path, body === undefined ? {} : { json: body });

    /** authorization_url (302 to Zoom) -> the sandbox's consent -> our callback -> where the browser lands. */
    const consent = (state: string, deny = false) =>
      t.consent(token, {
        type: 'conf',
        redirectTo: CB,
        state,
        atProvider(atZoom) {
          expect(`${atZoom.origin}${atZoom.pathname}`).toBe(`${sandbox.oauthUrl}/oauth/authorize`);
          expect(atZoom.searchParams.get('code_challenge_method')).toBe('S256');
          if (deny) atZoom.searchParams.set('sandbox_deny', '1');
        },
      });

    async function pairedCollection(name: string): Promise<string> {
      const id = await newCollection(t.call, token, 'conf', name);
      await pairFlow(t.call, token, id, { type: 'conf', redirectTo: CB, state: `client-${id}`, callbackOrigin: t.url });
      return id;
    }

    /** Queues a run the way a client does (PATCH pending or POST start) and waits for the background worker. */
    async function syncToEnd(id: string, how: 'start' | 'pending' = 'start', statuses = ['synced']): Promise<Json> {
      const res =
        how === 'start'
          ? await call('POST', `/v1/collections/${id}/start`)
          : await call('PATCH', `/v1/collections/${id}`, { sync_status: 'pending' });
      expect(res.status).toBe(how === 'start' ? 200 : 204);
      return t.waitForStatus(token, id, statuses, 30_000);
    }

    async function expectExactly(id: string, filters: ConfFilters): Promise<ApiItem[]> {
      const got = await t.items(token, id);
      const expected = expectedItems(sandbox, filters);
      expect(got.map((i) => keyOf(i.kind, i.source_id)).sort()).toEqual([...expected.items.keys()].sort());
      for (const item of got) {
        const sha = expected.items.get(keyOf(item.kind, item.source_id));
        // Issue 20: a meeting's or a message's record is its content (JSON); files carry the sandbox's bytes.
        if (sha === 'record')
          expect([item.sha256, item.mime_type], item.source_id).toEqual([
            expect.stringMatching(/^[0-9a-f]{64}$/),
            'application/json',
          ]);
        else expect(item.sha256, item.source_id).toBe(sha);
        // Channel messages belong to their channel's unit; everything else to a selected owner.
        if (item.kind === 'channel_message') expect(item.custodian).toBe(item.metadata.conversation_id);
        else expect(expected.owners).toContain(item.custodian);
      }
      return got;
    }

    beforeAll(async () => {
      sandbox = await startZoomSandbox({
        seed: 41,
        users: 5,
        meetingsPerUser: 3,
        channels: 3,
        messagesPerChannel: 6,
        messagesPerChat: 5,
      });
      // The server's own wiring (createRuntime + createConnectors) from the ZOOM_* settings, pointed at the sandbox.
      t = await startTestApp({
        database,
        env: {
          ZOOM_CLIENT_ID: sandbox.clientId,
          ZOOM_CLIENT_SECRET: sandbox.clientSecret,
          ZOOM_OAUTH_URL: sandbox.oauthUrl,
          ZOOM_API_URL: sandbox.apiUrl,
        },
      });
      token = await t.token('acme', [CB]);
    });

    afterAll(async () => {
      await t?.close();
      await sandbox?.close();
    });

    it('relays a declined consent to redirect_to without pairing anything', async () => {
      const id = await newCollection(t.call, token, 'conf', 'declined');
      const landed = await consent('no-thanks', true);
      expect(`${landed.origin}${landed.pathname}`).toBe(CB);
      expect(landed.searchParams.get('error')).toBe('access_denied');
      expect(landed.searchParams.get('code')).toBeNull();
      expect(landed.searchParams.get('state')).toBe('no-thanks');
      expect((await call('GET', `/v1/collections/${id}/users`)).status).toBe(409);
    });

    describe('an auto collection of everything but one owner, audio and one channel', () => {
      let id: string;
      let filters: ConfFilters;

      it("pairs, discovers users of every status and a user's channels, then collects exactly what the filters allow", async () => {
        id = await pairedCollection('everything');

        const first = await jsonOf(await call('GET', `/v1/collections/${id}/users?limit=3`), 200);
        expect(first.results).toHaveLength(3);
        const second = await jsonOf(
          await call('GET', `/v1/collections/${id}/users?limit=3&offset=${encodeURIComponent(first.next_page_token)}`),
          200,
        );
        expect(second.next_page_token).toBeNull();
        const listed = [...first.results, ...second.results];
        expect(listed.map((u: Json) => u.id).sort()).toEqual(sandbox.tenant.users.map((u) => u.id).sort());
        expect(new Set(listed.map((u: Json) => u.data.status))).toEqual(new Set(['active', 'inactive', 'pending']));

        const member = sandbox.tenant.users[0];
        const channels = await jsonOf(await call('GET', `/v1/collections/${id}/channels?user=${member.id}`), 200);
        expect(channels.next_page_token).toBeNull();
        expect(channels.results.map((c: Json) => c.id).sort()).toEqual(
          sandbox.tenant
            .channelsOf(member.id)
            .map((c) => c.id)
            .sort(),
        );
        expect((await call('GET', `/v1/collections/${id}/channels`)).status).toBe(400);
        expect((await call('GET', `/v1/collections/${id}/channels?user=nobody`)).status).toBe(404);

        const [kept, dropped] = [sandbox.tenant.channels[0], sandbox.tenant.channels[1]];
        filters = {
          account_owners: { all_selected: true, selected: [], excluded: [{ id: sandbox.tenant.users[1].id }] },
          content_selections: { all_selected: true, selected: [], excluded: [{ audio: true }] },
          chats: {
            all_selected: false,
            selected: [
              { 'one-to-one': true },
              { channels: { all_selected: true, selected: [], excluded: [{ id: dropped.id }] } },
            ],
            excluded: [],
          },
        };
        expect(
          (await call('PATCH', `/v1/collections/${id}`, { sync_filters: filters, type_sync: 'auto' })).status,
        ).toBe(204);
        const c = await syncToEnd(id);
        expect(c.latest_run).toMatchObject({ trigger: 'start', status: 'succeeded' });
        const got = await expectExactly(id, filters);
        expect(got.some((i) => i.kind === 'channel_message' && i.metadata.conversation_id === kept.id)).toBe(true);

        // The stored bytes are the sandbox's bytes, served with the SHA-256 as ETag.
        const video = got.find((i) => i.kind === 'recording_video')!;
        const content = await call('GET', `/v1/collections/${id}/items/${video.onna_id}/content`);
        expect(content.status).toBe(200);
        const bytes = Buffer.from(await content.arrayBuffer());
        expect(hash('sha256', bytes)).toBe(hash('sha256', sandbox.contentOf(video.source_id)));
        expect(content.headers.get('etag')).toBe(`"${video.sha256}"`);
        expect(video.md5).toBe(hash('md5', bytes));

        // A chat message downloads as its record: the message object Zoom returned, with its text and sender.
        const conversation = sandbox.tenant.conversationsOf(sandbox.tenant.users[0].id)[0].conversation;
        const sent = conversation.messages.at(-1)!;
        const msg = got.find((i) => i.kind === 'chat_message' && i.source_id === sent.id)!;
        const record = await call('GET', `/v1/collections/${id}/items/${msg.onna_id}/content`);
        expect(record.status).toBe(200);
        expect(record.headers.get('content-type')).toMatch(/^application\/json/);
        const recordBytes = Buffer.from(await record.arrayBuffer());
        expect(hash('sha256', recordBytes)).toBe(msg.sha256);
        expect(JSON.parse(recordBytes.toString('utf8'))).toMatchObject({
          id: sent.id,
          message: sent.message,
          sender: sent.sender,
        });
        expect(msg.metadata).toMatchObject({
          message: sent.message,
          sender: sent.sender,
          sender_display_name: sent.sender_display_name,
        });
        // A meeting too: its record with the file list, without the passcode the listing carries.
        const meeting = got.find((i) => i.kind === 'meeting')!;
        const meetingRecord = JSON.parse(
          Buffer.from(
            await (await call('GET', `/v1/collections/${id}/items/${meeting.onna_id}/content`)).arrayBuffer(),
          ).toString('utf8'),
        );
        expect(meetingRecord.uuid).toBe(meeting.source_id);
        expect(meetingRecord.recording_files.length).toBeGreaterThan(0);
        expect(JSON.stringify(meetingRecord)).not.toMatch(/passcode|password|token/i);
      });

      it('lists every item with its hashes in the manifest, as JSON and as CSV', async () => {
        const items = await t.items(token, id);
        const { json, csv } = await fetchManifest(t.call, token, id);
        expect(json.collection).toMatchObject({ onna_id: id, type: 'conf', type_sync: 'auto', sync_status: 'synced' });
        expect(json.filters).toEqual(filters);
        expect(json.counts.items).toBe(items.length);
        // Everything collected is content (issue 20).
        expect(json.counts.without_content).toBe(0);
        expect(json.runs).toHaveLength(1);
        const manifestItems = new Map((json.items as Json[]).map((m) => [m.onna_id as string, m]));
        expect(manifestItems.size).toBe(json.items.length);
        expect([...manifestItems.keys()].sort()).toEqual(items.map((i) => i.onna_id).sort());
        for (const item of items) {
          expect(manifestItems.get(item.onna_id)).toMatchObject({
            kind: item.kind,
            source_id: item.source_id,
            custodian: item.custodian,
            sha256: item.sha256,
            md5: item.md5,
            provider_hash_type: item.provider_hash?.type ?? null,
            hash_verified: item.hash_verified,
            run_id: json.runs[0].run_id,
          });
        }
        const rows = csv.filter((r) => r.record_type === 'item');
        expect(csv.filter((r) => r.record_type === 'summary')).toHaveLength(1);
        expect(rows.map((r) => r.onna_id).sort()).toEqual(items.map((i) => i.onna_id).sort());
        for (const row of rows) {
          const m = manifestItems.get(row.onna_id)!;
          expect([row.sha256, row.md5, row.size], row.onna_id).toEqual([
            m.sha256 ?? '',
            m.md5 ?? '',
            m.size === null ? '' : String(m.size),
          ]);
        }
      });

      it('a second run queued with PATCH pending fetches only what changed: no recording is downloaded again', async () => {
        const before = await t.items(token, id);
        const firstRun = before[0].run_id;
        const channel = sandbox.tenant.channels[0];
        const author = sandbox.tenant.findUser(channel.memberIds.find((m) => m !== sandbox.tenant.users[1].id)!)!;
        const now = Date.now() - 1000;
        const fresh = 'f00dfeed-0000-4000-8000-00000000e2e1';
        sandbox.tenant.channelMessages[channel.id].push({
          id: fresh,
          sender: author.email,
          senderId: author.id,
          sender_display_name: author.display_name,
          date_time: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          timestamp: now,
          message: 'filed late',
          status: 'Normal',
        });
        const conversation = sandbox.tenant.conversationsOf(author.id)[0].conversation;
        const edited = conversation.messages.at(-1)!;
        edited.originalMessage = edited.message;
        edited.message = `${edited.message} (edited later)`;
        edited.status = 'Edited';
        expect(expectedItems(sandbox, filters).items.has(keyOf('channel_message', fresh))).toBe(true);
        const mark = sandbox.requests.length;

        const c = await syncToEnd(id, 'pending');
        expect(c.latest_run.run_id).not.toBe(firstRun);
        expect(sandbox.requests.slice(mark).filter((r) => r.listener === 'files')).toEqual([]);
        expect(c.latest_run.counters).toMatchObject({ collected: 2, failed: 0 });
        const got = await expectExactly(id, filters);
        // The only bytes stored are the two records (the new message, the edited one's new version).
        const changed = got.filter((i) => i.source_id === fresh || i.source_id === edited.id);
        expect(c.latest_run.counters.bytes).toBe(changed.reduce((sum, i) => sum + i.size!, 0));
        expect(got.find((i) => i.source_id === fresh)!.run_id).toBe(c.latest_run.run_id);
        expect(got.find((i) => i.source_id === edited.id)!.metadata.status).toBe('Edited');
        expect(
          got
            .filter((i) => i.run_id === c.latest_run.run_id)
            .map((i) => i.source_id)
            .sort(),
        ).toEqual([edited.id, fresh].sort());
      });
    });

    describe('sync_status pending sent while a run is going', () => {
      const owner = (i: number): ConfFilters => ({
        account_owners: { all_selected: false, selected: [{ id: sandbox.tenant.users[i].id }], excluded: [] },
        content_selections: { all_selected: true, selected: [], excluded: [] },
      });
      const keysOf = (items: ApiItem[], runId: string) =>
        items
          .filter((i) => i.run_id === runId)
          .map((i) => keyOf(i.kind, i.source_id))
          .sort();
      const poll = async <T>(what: () => Promise<T | undefined>): Promise<T> => {
        for (let i = 0; i < 300; i++) {
          const got = await what();
          if (got !== undefined) return got;
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error('timed out');
      };

      /** A run stalled at Zoom after it started (its first API request is in), and a release for it. */
      async function stalledRun(id: string) {
        let release!: () => void;
        sandbox.faults.stall = new Promise<void>((r) => (release = r));
        const mark = sandbox.requests.length;
        const runId = (await jsonOf(await call('POST', `/v1/collections/${id}/start`), 200)).run_id as string;
        await poll(async () =>
          sandbox.requests.slice(mark).some((r) => r.path.startsWith('/v2/')) ? true : undefined,
        );
        return {
          runId,
          release: () => {
            sandbox.faults.stall = null;
            release();
          },
        };
      }

      it('the run keeps the filters it started with; the sync asked for follows it with the new ones', async () => {
        const id = await pairedCollection('follow-up');
        expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: owner(0) })).status).toBe(204);
        const first = await stalledRun(id);
        expect(
          (await call('PATCH', `/v1/collections/${id}`, { sync_filters: owner(1), sync_status: 'pending' })).status,
        ).toBe(204);
        const during = await jsonOf(await call('GET', `/v1/collections/${id}`), 200);
        expect([during.sync_status, during.latest_run.run_id]).toEqual(['syncing', first.runId]);
        first.release();

        // the first run's end moves the collection straight on to the follow-up: `synced` means both ran
        const done = await t.waitForStatus(token, id, ['synced'], 30_000);
        const second = done.latest_run.run_id as string;
        expect(second).not.toBe(first.runId);
        const runs = (await jsonOf(await call('GET', `/v1/collections/${id}/runs`), 200)).runs as Json[];
        expect(runs.map((r) => [r.run_id, r.status])).toEqual(
          expect.arrayContaining([
            [first.runId, 'succeeded'],
            [second, 'succeeded'],
          ]),
        );
        const items = await t.items(token, id);
        expect(keysOf(items, first.runId)).toEqual([...confOracle(sandbox.tenant, owner(0)).keys()].sort());
        expect(keysOf(items, second)).toEqual([...confOracle(sandbox.tenant, owner(1)).keys()].sort());
      });

      it('a cancel of the run cancels the sync asked for during it', async () => {
        const id = await pairedCollection('follow-up-cancelled');
        expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: owner(2) })).status).toBe(204);
        const first = await stalledRun(id);
        expect((await call('PATCH', `/v1/collections/${id}`, { sync_status: 'pending' })).status).toBe(204);
        expect((await call('POST', `/v1/collections/${id}/runs/${first.runId}/cancel`)).status).toBeLessThan(300);
        first.release();
        const c = await t.waitForStatus(token, id, ['error'], 30_000);
        expect(c.latest_run).toMatchObject({ run_id: first.runId, status: 'cancelled' });
        expect((await jsonOf(await call('GET', `/v1/collections/${id}/runs`), 200)).runs).toHaveLength(1);
        // nor is it left for a later run to honour: the next start runs once
        const next = await syncToEnd(id);
        expect(
          (await jsonOf(await call('GET', `/v1/collections/${id}/runs`), 200)).runs.map((r: Json) => r.run_id),
        ).toEqual([next.latest_run.run_id, first.runId]);
      });
    });

    it('reports a selected channel that no selected owner is a member of: a failed unit, the run completed with errors', async () => {
      const owners = sandbox.tenant.users.filter((u) => u.status !== 'pending');
      const channel = sandbox.tenant.channels.find((c) => owners.some((u) => !c.memberIds.includes(u.id)))!;
      const outsider = owners.find((u) => !channel.memberIds.includes(u.id))!;
      const member = owners.find((u) => channel.memberIds.includes(u.id))!;
      const chats = {
        all_selected: false,
        selected: [
          {
            channels: { all_selected: false, selected: [{ id: channel.id }, { id: 'no-such-channel' }], excluded: [] },
          },
        ],
        excluded: [],
      };
      const content = { all_selected: false, selected: [{ transcript: true }], excluded: [] };
      const cases = [
        { owners: [outsider.id], unreachable: [channel.id, 'no-such-channel'].sort() },
        { owners: [], unreachable: [channel.id, 'no-such-channel'].sort() },
        { owners: [member.id], unreachable: ['no-such-channel'] },
      ];
      for (const c of cases) {
        const id = await pairedCollection(`unreachable-${c.owners.length}-${c.unreachable.length}`);
        const filters: ConfFilters = {
          account_owners: { all_selected: false, selected: c.owners.map((o) => ({ id: o })), excluded: [] },
          content_selections: content,
          chats,
        };
        expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: filters })).status).toBe(204);
        const done = await syncToEnd(id);
        expect(done.latest_run.status, JSON.stringify(c)).toBe('completed_with_errors');
        expect([done.latest_run.counters.failed, done.latest_run.error_count]).toEqual([
          c.unreachable.length,
          c.unreachable.length,
        ]);
        const r = await jsonOf(
          await call('GET', `/v1/collections/${id}/runs/${done.latest_run.run_id}/reconciliation`),
          200,
        );
        expect(r.balanced).toBe(true);
        const failed = (r.custodians as Json[]).filter((u) => u.unit_kind === 'channel' && u.failed > 0);
        expect(failed.map((u) => u.custodian).sort()).toEqual(c.unreachable);
        expect(failed[0].exceptions[0].reason).toMatch(/was selected but not reached/);
        await expectExactly(id, filters);
      }
    });

    it('collects selected owners with one content type and one selected channel only', async () => {
      const id = await pairedCollection('narrow');
      const channel = sandbox.tenant.channels[2];
      const filters: ConfFilters = {
        account_owners: { all_selected: false, selected: [{ id: channel.memberIds[0] }], excluded: [] },
        content_selections: { all_selected: false, selected: [{ transcript: true }], excluded: [] },
        chats: {
          all_selected: false,
          selected: [{ channels: { all_selected: false, selected: [{ id: channel.id }], excluded: [] } }],
          excluded: [],
        },
      };
      expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: filters })).status).toBe(204);
      await syncToEnd(id);
      const got = await expectExactly(id, filters);
      expect(new Set(got.map((i) => i.kind))).toEqual(new Set(['meeting', 'transcript', 'channel_message']));
      // Closed captions and the timeline follow `transcript`; the contract has no kind of their own.
      expect(new Set(got.filter((i) => i.kind === 'transcript').map((i) => i.metadata.file_type))).toEqual(
        new Set(['TRANSCRIPT', 'CC', 'TIMELINE']),
      );
    });

    it('a revoked grant puts the collection in error, asking for a new pairing', async () => {
      const id = await pairedCollection('revoked');
      const filters = {
        account_owners: { all_selected: true, selected: [], excluded: [] },
        content_selections: { all_selected: false, selected: [], excluded: [] },
      };
      expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: filters })).status).toBe(204);
      sandbox.revokeAll();
      // The cached access token is refused (401 code 124); the refresh is refused (invalid_grant).
      const c = await syncToEnd(id, 'start', ['error']);
      expect(c.status_reason).toMatch(/re-pair/);
      expect(c.latest_run.status).toBe('error');
      expect(JSON.stringify(c)).not.toMatch(/Bearer|refresh_token/);
    });
  },
);
