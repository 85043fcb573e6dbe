import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grant } from '../../src/connectors/types.ts';
import { startZoomSandbox, ZOOM_SANDBOX_SCOPES, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { ALL_CHATS, filters, pair, sel, testConnector } from '../connectors/zoom-harness.ts';
import { testDatabases } from '../support/databases.ts';
import { runToEnd, startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

const PARTICIPANT_AUDIO_SCOPE = 'cloud_recording:read:list_recording_files:admin';
/** Zoom's legacy macro scopes of older apps (../shared/reference/zoom-api.md, Correction Z7). */
const LEGACY = [
  'user:read:admin',
  'recording:read:admin',
  'meeting:read:admin',
  'chat_message:read:admin',
  'chat_channel:read:admin',
];

const audio = filters({
  account_owners: sel({ all: true }),
  content_selections: { all_selected: false, selected: [{ audio: true }], excluded: [] },
});
const videoOnly = filters({
  account_owners: sel({ all: true }),
  content_selections: { all_selected: false, selected: [{ video: true }], excluded: [] },
});

/** Scopes come with the token and are compared with what the filters need before anything is asked of Zoom. */
for (const database of testDatabases) {
  describe(`Zoom scopes checked against the filters (${database.name})`, () => {
    let narrow: ZoomSandbox;
    let legacy: ZoomSandbox;
    let app: ItemsApp;
    let token: string;
    let narrowGrant: Grant;
    let legacyGrant: Grant;

    beforeAll(async () => {
      // An app configured without the meeting recordings endpoint's scope.
      narrow = await startZoomSandbox({
        seed: 31,
        users: 2,
        meetingsPerUser: 1,
        channels: 1,
        evidence: true,
        scopes: ZOOM_SANDBOX_SCOPES.filter((s) => s !== PARTICIPANT_AUDIO_SCOPE),
      });
      legacy = await startZoomSandbox({
        seed: 32,
        users: 2,
        meetingsPerUser: 2,
        channels: 1,
        evidence: true,
        scopes: LEGACY,
      });
      narrowGrant = await pair(testConnector(narrow));
      legacyGrant = await pair(testConnector(legacy));
      app = await startItemsApp(database, [testConnector(narrow)]);
      token = await app.token('acme');
    });
    afterAll(async () => {
      await app?.close();
      await narrow?.close();
      await legacy?.close();
    });

    const collection = async (grant: Grant, f: unknown) =>
      (await seedCollection(app.ctx.db, { type: 'conf', account: 'acme', sealer: app.ctx.sealer, grant, filters: f }))
        .collectionId;
    const apiRequests = (s: ZoomSandbox) =>
      s.requests.filter((r) => r.listener === 'main' && r.path.startsWith('/v2/')).length;

    it('keeps the scopes Zoom granted with the token', () => {
      expect(narrowGrant.scope).toBeTypeOf('string');
      expect((narrowGrant.scope as string).split(' ')).not.toContain(PARTICIPANT_AUDIO_SCOPE);
    });

    it('PATCH answers 422 naming the missing scope and the feature; filters that do not need it are saved', async () => {
      const id = await collection(narrowGrant, videoOnly);
      const res = await app.call(token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: audio } });
      expect(res.status).toBe(422);
      const body = (await res.json()) as Json;
      expect(body.detail).toContain(PARTICIPANT_AUDIO_SCOPE);
      expect(body.detail).toMatch(/participant audio/);
      expect(body.pointer ?? body.source?.pointer ?? JSON.stringify(body)).toContain(
        '/body/sync_filters/content_selections',
      );
      expect(
        (await app.call(token, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: videoOnly } })).status,
      ).toBe(204);
    });

    it('start answers 409 naming the scope, and a run of such filters stops in `error` saying so, before asking Zoom anything', async () => {
      const id = await collection(narrowGrant, audio);
      const before = apiRequests(narrow);
      const res = await app.call(token, 'POST', `/v1/collections/${id}/start`);
      expect(res.status).toBe(409);
      expect(((await res.json()) as Json).detail).toContain(PARTICIPANT_AUDIO_SCOPE);
      // A run queued another way (a schedule, an event) finds out before its first request.
      await app.engine.queue(id);
      const run = await app.ctx.repos.runs.active(id);
      expect(await runToEnd(app, run!.id)).toBe('error');
      const c = (await (await app.call(token, 'GET', `/v1/collections/${id}`)).json()) as Json;
      expect(c.sync_status).toBe('error');
      expect(c.status_reason).toContain(PARTICIPANT_AUDIO_SCOPE);
      expect(c.status_reason).toMatch(/participant audio/);
      expect(apiRequests(narrow)).toBe(before);
    });

    it('legacy macro scopes of older apps grant every feature: everything is accepted and a run of all of it succeeds', async () => {
      expect((legacyGrant.scope as string).split(' ').sort()).toEqual([...LEGACY].sort());
      const legacyApp = await startItemsApp(database, [testConnector(legacy)]);
      try {
        const t = await legacyApp.token('acme');
        const all = filters({ account_owners: sel({ all: true }), chats: ALL_CHATS });
        const id = (
          await seedCollection(legacyApp.ctx.db, {
            type: 'conf',
            account: 'acme',
            sealer: legacyApp.ctx.sealer,
            grant: legacyGrant,
            filters: videoOnly,
          })
        ).collectionId;
        expect(
          (await legacyApp.call(t, 'PATCH', `/v1/collections/${id}`, { json: { sync_filters: all } })).status,
        ).toBe(204);
        const start = await legacyApp.call(t, 'POST', `/v1/collections/${id}/start`);
        expect(start.status).toBe(200);
        expect(await runToEnd(legacyApp, ((await start.json()) as Json).run_id)).toBe('succeeded');
      } finally {
        await legacyApp.close();
      }
    });
  });
}
