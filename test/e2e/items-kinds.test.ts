import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOneDriveConnector } from '../../src/connectors/onedrive/index.ts';
import { createZoomConnector } from '../../src/connectors/zoom/index.ts';
import { newId } from '../../src/store/ids.ts';
import { testDatabases } from '../support/databases.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

// Nothing here reaches a provider: listing items reads the database only.
const zoom = createZoomConnector({
  clientId: 'c',
  clientSecret: 's',
  oauthUrl: 'http://127.0.0.1:9',
  apiUrl: 'http://127.0.0.1:9/v2',
  lookbackDays: 30,
});
const onedrive = createOneDriveConnector({
  clientId: 'c',
  clientSecret: 's',
  loginUrl: 'http://127.0.0.1:9',
  graphUrl: 'http://127.0.0.1:9/v1.0',
});

for (const database of testDatabases) {
  describe(`item kinds come from the connector registry (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    let conf: string;
    let edrive: string;

    const insertItem = async (
      collectionId: string,
      accountId: string,
      kind: string,
      sourceId: string,
      metadata: Record<string, unknown> = {},
    ) => {
      const at = new Date().toISOString();
      await app.ctx.db
        .insertInto('items')
        .values({
          id: newId('itm'),
          collection_id: collectionId,
          account_id: accountId,
          kind,
          source_id: sourceId,
          name: sourceId,
          path: `/${sourceId}`,
          custodian: 'u1',
          size: null,
          mime_type: null,
          sha256: null,
          md5: null,
          provider_hash_type: null,
          provider_hash_value: null,
          hash_verified: null,
          created_datetime: null,
          modified_datetime: null,
          collected_datetime: at,
          deleted_at_source: null,
          tombstoned_at: null,
          content_state: 'none',
          holds_ref: 0,
          run_id: 'run_x',
          version: null,
          metadata: JSON.stringify(metadata),
          text: null,
          previous_versions: null,
          first_seen_at: at,
          updated_at: at,
        })
        .execute();
    };

    beforeAll(async () => {
      app = await startItemsApp(database, [zoom, onedrive]);
      token = await app.token('acme');
      const c = await seedCollection(app.ctx.db, { type: 'conf', account: 'acme', sealer: app.ctx.sealer });
      const e = await seedCollection(app.ctx.db, { type: 'edrive', account: 'acme', sealer: app.ctx.sealer });
      conf = c.collectionId;
      edrive = e.collectionId;
      await insertItem(conf, c.accountId, 'transcript', 'cc1', { file_type: 'CC' });
      await insertItem(conf, c.accountId, 'transcript', 'tl1', { file_type: 'TIMELINE' });
      await insertItem(conf, c.accountId, 'meeting', 'm1');
      await insertItem(edrive, e.accountId, 'file', 'f1');
    });
    afterAll(async () => app?.close());

    const list = (collectionId: string, kind: string) =>
      app.call(token, 'GET', `/v1/collections/${collectionId}/items?kind=${kind}`);

    it('filters by any kind the collection type produces; closed captions and timelines are transcripts', async () => {
      expect([...zoom.kinds].sort()).toEqual([
        'ai_meeting_notes',
        'channel_message',
        'chat_file',
        'chat_message',
        'legal_hold_file',
        'meeting',
        'meeting_chat',
        'participant_audio',
        'recording_audio',
        'recording_video',
        'transcript',
      ]);
      for (const [kind, ids] of [
        ['transcript', ['cc1', 'tl1']],
        ['meeting', ['m1']],
        ['recording_video', []],
      ] as const) {
        const res = await list(conf, kind);
        expect(res.status, kind).toBe(200);
        expect(((await res.json()) as Json).items.map((i: Json) => i.source_id).sort()).toEqual(ids);
      }
      for (const kind of ['closed_caption', 'timeline']) expect((await list(conf, kind)).status, kind).toBe(400);
      expect(((await (await list(edrive, 'file')).json()) as Json).items.map((i: Json) => i.source_id)).toEqual(['f1']);
    });

    it("answers 400 naming the type's kinds for a kind the collection type does not produce", async () => {
      const res = await list(conf, 'file');
      expect(res.status).toBe(400);
      const body = (await res.json()) as Json;
      expect(body).toMatchObject({ code: '00400_bad_request', source: { pointer: '/querystring/kind' } });
      for (const kind of zoom.kinds) expect(body.detail).toContain(kind);
      const drive = (await (await list(edrive, 'closed_caption')).json()) as Json;
      expect(drive.detail).toMatch(/file, folder/);
    });

    it('documents every connector kind on the kind parameter', async () => {
      const doc = (await (await fetch(`${app.url}/v1/openapi.json`)).json()) as Json;
      const param = (doc.paths['/v1/collections/{id}/items'].get.parameters as Json[]).find((p) => p.name === 'kind')!;
      for (const kind of [...zoom.kinds, ...onedrive.kinds]) expect(param.description).toContain(kind);
    });
  });
}
