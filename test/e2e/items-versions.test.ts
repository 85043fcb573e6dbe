import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, sha256, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';
import { parseCsv } from '../support/app.ts';

type Json = Record<string, any>;

const v1 = bytesOf('versions-api-v1', 20_000);
const v2 = bytesOf('versions-api-v2', 21_000);

for (const database of testDatabases) {
  describe(`superseded versions over HTTP: list, download, manifest (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    let collectionId: string;
    let source: FakeSource;
    const runIds: string[] = [];
    const connector = createFakeConnector({ source: () => source });

    const sync = async () => {
      const res = await app.call(token, 'POST', `/v1/collections/${collectionId}/start`);
      const { run_id } = (await res.json()) as { run_id: string };
      expect((await app.engine.runOnce(run_id)).status).toBe('succeeded');
      runIds.push(run_id);
    };

    beforeAll(async () => {
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
      ({ collectionId } = await seedCollection(app.ctx.db, {
        account: 'acme',
        sealer: app.ctx.sealer,
        typeSync: 'arch',
      }));
      source = {
        units: [
          {
            items: [
              { kind: 'file', sourceId: 'doc', name: 'budget.txt', content: v1, version: '1', metadata: { rev: 1 } },
              {
                kind: 'chat_message',
                sourceId: 'msg',
                name: 'msg',
                text: 'meet at 10',
                version: 'a',
                metadata: { status: 'Normal' },
              },
            ],
          },
        ],
      };
      await sync();
      source = {
        units: [
          {
            items: [
              {
                kind: 'file',
                sourceId: 'doc',
                name: 'budget final.txt',
                content: v2,
                version: '2',
                metadata: { rev: 2 },
              },
              {
                kind: 'chat_message',
                sourceId: 'msg',
                name: 'msg',
                text: 'meet at 11',
                version: 'b',
                metadata: { status: 'Edited' },
              },
            ],
          },
        ],
      };
      await sync();
    });
    afterAll(async () => app?.close());

    const get = (p: string, headers?: Record<string, string>) =>
      app.call(token, 'GET', `/v1/collections/${collectionId}${p}`, { headers });
    const itemId = async (sourceId: string) => {
      const { items } = (await (await get('/items')).json()) as { items: Json[] };
      return items.find((i) => i.source_id === sourceId)!.onna_id as string;
    };

    it('lists superseded versions oldest first, content-less ones with their text, and leaves the Item shape alone', async () => {
      const doc = await itemId('doc');
      const item = (await (await get(`/items/${doc}`)).json()) as Json;
      expect(item).toMatchObject({ sha256: sha256(v2), name: 'budget final.txt', run_id: runIds[1] });
      expect(item).not.toHaveProperty('previous_versions');
      const res = await get(`/items/${doc}/versions`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        item_id: doc,
        current_version_number: 2,
        versions: [
          expect.objectContaining({
            version_number: 1,
            name: 'budget.txt',
            path: '/fake/budget.txt',
            sha256: sha256(v1),
            size: v1.length,
            hash_verified: true,
            provider_hash: { type: 'sha1Hash', value: expect.any(String) },
            run_id: runIds[0],
            superseded_by_run_id: runIds[1],
            metadata: { rev: 1 },
            content_available: true,
          }),
        ],
      });
      const msg = (await (await get(`/items/${await itemId('msg')}/versions`)).json()) as Json;
      expect(msg.versions).toEqual([
        expect.objectContaining({
          version_number: 1,
          text: 'meet at 10',
          metadata: { status: 'Normal' },
          sha256: null,
          content_available: false,
          run_id: runIds[0],
        }),
      ]);
    });

    it("downloads a version's bytes with ETag, Range and If-None-Match; 404 where there is none", async () => {
      const doc = await itemId('doc');
      const path = `/items/${doc}/versions/1/content`;
      const full = await get(path);
      expect(full.status).toBe(200);
      expect(full.headers.get('etag')).toBe(`"${sha256(v1)}"`);
      expect(full.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''budget.txt");
      expect(Buffer.from(await full.arrayBuffer()).equals(v1)).toBe(true);
      const part = await get(path, { range: 'bytes=10-19' });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 10-19/${v1.length}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(v1.subarray(10, 20))).toBe(true);
      expect((await get(path, { 'if-none-match': `"${sha256(v1)}"` })).status).toBe(304);
      expect((await get(`/items/${doc}/versions/2/content`)).status).toBe(404);
      expect((await get(`/items/${await itemId('msg')}/versions/1/content`)).status).toBe(404);
      expect((await get(`/items/${doc}/versions/0/content`)).status).toBe(400);
      const other = await app.token('umbrella');
      expect((await app.call(other, 'GET', `/v1/collections/${collectionId}/items/${doc}/versions`)).status).toBe(404);
      expect((await app.call(other, 'GET', `/v1/collections/${collectionId}${path}`)).status).toBe(404);
    });

    it('sends the whole new content to a resumed download whose If-Range names the superseded version', async () => {
      const doc = await itemId('doc');
      const resumed = await get(`/items/${doc}/content`, { range: 'bytes=10-', 'if-range': `"${sha256(v1)}"` });
      expect(resumed.status).toBe(200);
      expect(resumed.headers.get('content-range')).toBeNull();
      expect(Buffer.from(await resumed.arrayBuffer()).equals(v2)).toBe(true);
      const current = await get(`/items/${doc}/content`, { range: 'bytes=10-', 'if-range': `"${sha256(v2)}"` });
      expect(current.status).toBe(206);
      expect(Buffer.from(await current.arrayBuffer()).equals(v2.subarray(10))).toBe(true);
    });

    it("evaluates the RFC 9110 preconditions on a version's content", async () => {
      const doc = await itemId('doc');
      const path = `/items/${doc}/versions/1/content`;
      expect((await get(path, { range: 'bytes=0-9', 'if-range': `"${sha256(v1)}"` })).status).toBe(206);
      expect((await get(path, { range: 'bytes=0-9', 'if-range': `"${sha256(v2)}"` })).status).toBe(200);
      const failed = await get(path, { 'if-match': '"nope"' });
      expect(failed.status).toBe(412);
      expect(await failed.json()).toMatchObject({
        code: '00412_precondition_failed',
        id: failed.headers.get('x-correlation-id'),
      });
      expect((await get(path, { 'if-match': `"${sha256(v1)}"` })).status).toBe(200);
      expect((await get(path, { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' })).status).toBe(412);
      expect((await get(path, { 'if-none-match': '*' })).status).toBe(304);
      expect((await get(path, { 'if-none-match': `"${sha256(v2)}"` })).status).toBe(200);
      expect((await get(`/items/${doc}/versions/2/content`, { 'if-none-match': '*' })).status).toBe(404);
    });

    it('takes a version number only as plain decimal digits in range: 400 naming it otherwise', async () => {
      const doc = await itemId('doc');
      for (const n of ['Infinity', '-Infinity', '1e0', '0x1', '1.5', 'abc', '+1', '1%20', '0', '-1', '1000001']) {
        const res = await get(`/items/${doc}/versions/${n}/content`);
        const body = (await res.json()) as Json;
        expect({ n, status: res.status, pointer: body.source?.pointer, id: body.id }).toEqual({
          n,
          status: 400,
          pointer: '/params/version_number',
          id: res.headers.get('x-correlation-id'),
        });
      }
      expect((await get(`/items/${doc}/versions/1/content`)).status).toBe(200);
    });

    it('lists every version in the manifest: nested in JSON, one row each in CSV', async () => {
      const m = (await (await get('/manifest')).json()) as Json;
      expect(m.counts).toMatchObject({ items: 2, superseded_versions: 2, superseded_versions_retained: 1 });
      const doc = m.items.find((i: Json) => i.source_id === 'doc');
      expect(doc).toMatchObject({ version_number: 2, sha256: sha256(v2), run_id: runIds[1] });
      expect(doc.previous_versions).toEqual([
        expect.objectContaining({
          version_number: 1,
          sha256: sha256(v1),
          md5: expect.stringMatching(/^[0-9a-f]{32}$/),
          run_id: runIds[0],
          superseded_by_run_id: runIds[1],
          content_retained: true,
          name: 'budget.txt',
        }),
      ]);

      const rows = parseCsv(await (await get('/manifest?format=csv')).text());
      const header = rows[0];
      expect(header.slice(0, 4)).toEqual(['record_type', 'onna_id', 'kind', 'source_id']);
      expect(header.slice(-5)).toEqual([
        'detail',
        'version_number',
        'superseded_datetime',
        'superseded_by_run_id',
        'content_retained',
      ]);
      expect(rows.every((r) => r.length === header.length)).toBe(true);
      const col = (r: string[], name: string) => r[header.indexOf(name)];
      const docRows = rows.filter((r) => col(r, 'source_id') === 'doc');
      expect(
        docRows.map((r) => [col(r, 'record_type'), col(r, 'version_number'), col(r, 'sha256'), col(r, 'run_id')]),
      ).toEqual([
        ['item', '2', sha256(v2), runIds[1]],
        ['version', '1', sha256(v1), runIds[0]],
      ]);
      expect(col(docRows[1], 'content_retained')).toBe('true');
      expect(col(docRows[1], 'superseded_by_run_id')).toBe(runIds[1]);
      const msgVersion = rows.find((r) => col(r, 'source_id') === 'msg' && col(r, 'record_type') === 'version')!;
      expect(col(msgVersion, 'sha256')).toBe('');
      expect(col(msgVersion, 'content_retained')).toBe('');
    });
  });
}
