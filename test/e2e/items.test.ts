import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, sha1, sha256, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';
import { parseCsv } from '../support/app.ts';

const ITEM_KEYS = [
  'onna_id',
  'collection_id',
  'kind',
  'source_id',
  'name',
  'path',
  'custodian',
  'custodian_name',
  'custodian_email',
  'size',
  'mime_type',
  'sha256',
  'md5',
  'provider_hash',
  'hash_verified',
  'created_datetime',
  'modified_datetime',
  'collected_datetime',
  'deleted_at_source',
  'run_id',
  'metadata',
].sort();

const doc = bytesOf('e2e-doc', 50_000);
const clip = bytesOf('e2e-clip', 3_000);

for (const database of testDatabases) {
  describe(`items, runs and manifest over HTTP (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    let otherToken: string;
    let collectionId: string;
    let source: FakeSource;
    const connector = createFakeConnector({ source: () => source });

    beforeAll(async () => {
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
      otherToken = await app.token('umbrella');
      ({ collectionId } = await seedCollection(app.ctx.db, {
        account: 'acme',
        sealer: app.ctx.sealer,
        typeSync: 'auto',
        filters: { users: ['u1'] },
      }));
      source = {
        units: [
          {
            items: [
              {
                kind: 'file',
                sourceId: 'doc',
                name: 'report, final.pdf',
                content: doc,
                custodian: 'u1',
                metadata: { webUrl: 'https://x/doc' },
              },
              { kind: 'file', sourceId: 'clip', name: '=HYPERLINK("x")', content: clip, custodian: 'u2', hash: 'bad' },
              { kind: 'folder', sourceId: 'dir', name: 'Projects', custodian: 'u1' },
            ],
            errors: ['user u3 has no drive'],
          },
          {
            items: [
              { kind: 'meeting', sourceId: 'm1', name: 'Standup', custodian: 'u2' },
              { kind: 'file', sourceId: 'old', content: bytesOf('e2e-old', 10) },
            ],
          },
        ],
      };
      const start = await app.call(token, 'POST', `/v1/collections/${collectionId}/start`);
      expect(start.status).toBe(200);
      const { run_id } = (await start.json()) as { run_id: string };
      // `user u3 has no drive` is a failed piece: the run is honest about it.
      expect((await app.engine.runOnce(run_id)).status).toBe('completed_with_errors');
      source = { units: [{ items: [], deleted: [{ kind: 'file', sourceId: 'old' }] }] };
      const again = (await (await app.call(token, 'POST', `/v1/collections/${collectionId}/start`)).json()) as {
        run_id: string;
        created: boolean;
      };
      expect(again.created).toBe(true);
      await app.engine.runOnce(again.run_id);
    });
    afterAll(async () => app?.close());

    const get = async (p: string, t: string | null = token, headers?: Record<string, string>) =>
      app.call(t, 'GET', p, { headers });
    const list = async (q = '') =>
      (await (await get(`/v1/collections/${collectionId}/items${q}`)).json()) as {
        items: Record<string, unknown>[];
        cursor: string | null;
      };

    it('lists items in the fixed Item shape, paged, filterable by kind and custodian, without tombstones', async () => {
      const all = await list('?limit=200');
      // Oldest first; items written in one transaction share a time and follow their ids.
      expect(all.items.map((i) => i.source_id).sort()).toEqual(['clip', 'dir', 'doc', 'm1']);
      expect(Object.keys(all.items[0]).sort()).toEqual(ITEM_KEYS);
      expect(all.items.find((i) => i.source_id === 'doc')).toMatchObject({
        collection_id: collectionId,
        kind: 'file',
        name: 'report, final.pdf',
        custodian: 'u1',
        size: doc.length,
        sha256: sha256(doc),
        provider_hash: { type: 'sha1Hash', value: sha1(doc) },
        hash_verified: true,
        deleted_at_source: null,
        metadata: { webUrl: 'https://x/doc' },
      });
      expect(all.items.find((i) => i.source_id === 'dir')).toMatchObject({
        sha256: null,
        provider_hash: null,
        hash_verified: null,
      });
      const first = await list('?limit=3');
      expect(first.items).toEqual(all.items.slice(0, 3));
      const second = await list(`?limit=3&cursor=${first.cursor}`);
      expect(second).toEqual({ items: all.items.slice(3), cursor: null });
      expect((await list('?kind=file')).items.map((i) => i.source_id).sort()).toEqual(['clip', 'doc']);
      expect((await list('?custodian=u2')).items.map((i) => i.source_id).sort()).toEqual(['clip', 'm1']);
      const bad = await get(`/v1/collections/${collectionId}/items?kind=spaceship`);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ code: '00400_bad_request', source: { pointer: '/querystring/kind' } });
    });

    it('reads one item and streams its content with ETag, Range and conditional requests', async () => {
      const item = (await list('?kind=file')).items.find((i) => i.source_id === 'doc')!;
      const one = await get(`/v1/collections/${collectionId}/items/${item.onna_id}`);
      expect(await one.json()).toEqual(item);
      const path = `/v1/collections/${collectionId}/items/${item.onna_id}/content`;
      const full = await get(path);
      expect(full.status).toBe(200);
      expect(full.headers.get('etag')).toBe(`"${sha256(doc)}"`);
      expect(full.headers.get('content-type')).toBe('application/octet-stream');
      expect(full.headers.get('content-length')).toBe(String(doc.length));
      expect(full.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''report%2C%20final.pdf");
      expect(Buffer.from(await full.arrayBuffer()).equals(doc)).toBe(true);
      const part = await get(path, token, { range: 'bytes=100-199' });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 100-199/${doc.length}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(doc.subarray(100, 200))).toBe(true);
      const tail = await get(path, token, { range: 'bytes=-10' });
      expect(Buffer.from(await tail.arrayBuffer()).equals(doc.subarray(doc.length - 10))).toBe(true);
      const beyond = await get(path, token, { range: `bytes=${doc.length}-` });
      expect(beyond.status).toBe(416);
      expect(beyond.headers.get('content-range')).toBe(`bytes */${doc.length}`);
      expect((await get(path, token, { 'if-none-match': `"${sha256(doc)}"` })).status).toBe(304);
      const folder = (await list('?kind=folder')).items[0];
      expect((await get(`/v1/collections/${collectionId}/items/${folder.onna_id}/content`)).status).toBe(404);
    });

    it('evaluates the RFC 9110 preconditions in order: If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since, If-Range', async () => {
      const item = (await list('?kind=file')).items.find((i) => i.source_id === 'doc')!;
      const path = `/v1/collections/${collectionId}/items/${item.onna_id}/content`;
      const etag = `"${sha256(doc)}"`;
      const OLD = 'Sat, 01 Jan 2000 00:00:00 GMT';
      const lastModified = (await get(path)).headers.get('last-modified')!;
      expect(lastModified).toBe(new Date(item.collected_datetime as string).toUTCString());
      const status = async (headers: Record<string, string>) => (await get(path, token, headers)).status;

      const failed = await get(path, token, { 'if-match': '"nope"' });
      expect(failed.status).toBe(412);
      expect(await failed.json()).toMatchObject({
        code: '00412_precondition_failed',
        id: failed.headers.get('x-correlation-id'),
      });
      expect(await status({ 'if-match': `"nope", ${etag}` })).toBe(200);
      expect(await status({ 'if-match': '*' })).toBe(200);
      expect(await status({ 'if-match': `W/${etag}` })).toBe(412); // If-Match compares strongly
      expect(await status({ 'if-unmodified-since': OLD })).toBe(412);
      expect(await status({ 'if-unmodified-since': lastModified })).toBe(200);
      expect(await status({ 'if-match': etag, 'if-unmodified-since': OLD })).toBe(200); // If-Match present: the date is not evaluated
      expect(await status({ 'if-match': '"nope"', 'if-none-match': etag })).toBe(412);

      for (const inm of ['*', etag, `W/${etag}`, `"other", ${etag}`]) {
        const res = await get(path, token, { 'if-none-match': inm });
        expect({ inm, status: res.status, etag: res.headers.get('etag') }).toEqual({ inm, status: 304, etag });
      }
      expect((await app.call(token, 'HEAD', path, { headers: { 'if-none-match': '*' } })).status).toBe(304);
      expect(await status({ 'if-none-match': '"other"' })).toBe(200);
      expect(await status({ 'if-modified-since': lastModified })).toBe(304);
      expect(await status({ 'if-modified-since': OLD })).toBe(200);
      expect(await status({ 'if-none-match': '"other"', 'if-modified-since': lastModified })).toBe(200); // If-None-Match present: the date is not evaluated

      // If-Range: the range only while the validator is the current one, else the whole representation.
      const ranged = async (headers: Record<string, string>) => {
        const res = await get(path, token, headers);
        return { status: res.status, length: (await res.arrayBuffer()).byteLength };
      };
      expect(await ranged({ range: 'bytes=0-9', 'if-range': etag })).toEqual({ status: 206, length: 10 });
      expect(await ranged({ range: 'bytes=0-9', 'if-range': lastModified })).toEqual({ status: 206, length: 10 });
      for (const stale of ['"other"', `W/${etag}`, OLD, 'not a validator']) {
        expect(await ranged({ range: 'bytes=0-9', 'if-range': stale }), stale).toEqual({
          status: 200,
          length: doc.length,
        });
      }
      expect(await ranged({ range: `bytes=${doc.length}-`, 'if-range': '"other"' })).toEqual({
        status: 200,
        length: doc.length,
      });

      // An item without content answers its 404 before any precondition.
      const folder = (await list('?kind=folder')).items[0];
      expect(
        (await get(`/v1/collections/${collectionId}/items/${folder.onna_id}/content`, token, { 'if-none-match': '*' }))
          .status,
      ).toBe(404);
    });

    it('answers 404 for another account and 401 without a token', async () => {
      const item = (await list()).items[0];
      for (const p of ['/items', `/items/${item.onna_id}`, `/items/${item.onna_id}/content`, '/runs', '/manifest']) {
        const res = await get(`/v1/collections/${collectionId}${p}`, otherToken);
        expect(res.status, p).toBe(404);
        expect(await res.json()).toMatchObject({ code: '00404_not_found' });
        expect((await get(`/v1/collections/${collectionId}${p}`, null)).status, p).toBe(401);
      }
    });

    it('shows the run history with counters and errors, and the latest run on the collection', async () => {
      const body = (await (await get(`/v1/collections/${collectionId}/runs`)).json()) as {
        runs: Record<string, unknown>[];
      };
      expect(body.runs).toHaveLength(2);
      const [latest, first] = body.runs;
      expect(first).toMatchObject({
        trigger: 'start',
        status: 'completed_with_errors',
        attempt: 1,
        // the reconciliation's numbers: the user without a drive is listed, and failed
        counters: { listed: 6, collected: 5, unchanged: 0, excluded: 0, not_present: 0, failed: 1 },
        error_count: 2,
      });
      expect((first.errors as { reason: string }[]).map((e) => e.reason).sort()).toEqual([
        expect.stringContaining('sha1Hash mismatch'),
        'user u3 has no drive',
      ]);
      expect(latest).toMatchObject({ status: 'succeeded', counters: { listed: 0 } });
      const collection = (await (await get(`/v1/collections/${collectionId}`)).json()) as {
        latest_run: { run_id: string };
        sync_status: string;
      };
      expect(collection.sync_status).toBe('synced');
      expect(collection.latest_run.run_id).toBe(latest.run_id);
    });

    it('produces the JSON manifest: every item with hashes and verification, tombstones, summary and exceptions', async () => {
      const res = await get(`/v1/collections/${collectionId}/manifest`);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const m = (await res.json()) as Record<string, any>;
      expect(m).toMatchObject({
        manifest_version: 1,
        collection: { onna_id: collectionId, type: 'fake', type_sync: 'auto' },
        filters: { users: ['u1'] },
        filters_fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        counts: {
          items: 5,
          items_by_kind: { file: 3, folder: 1, meeting: 1 },
          hash_verified: 2,
          hash_mismatch: 1,
          without_content: 2,
          tombstoned: 1,
          deleted_at_source: 1,
          exceptions: 2,
        },
      });
      expect(m.runs).toHaveLength(2);
      const bySource = Object.fromEntries(m.items.map((i: any) => [i.source_id, i]));
      expect(Object.keys(bySource).sort()).toEqual(['clip', 'dir', 'doc', 'm1', 'old']);
      expect(bySource.doc).toMatchObject({
        path: '/fake/report, final.pdf',
        custodian: 'u1',
        sha256: sha256(doc),
        provider_hash_value: sha1(doc),
        hash_verified: true,
        created_datetime: '2024-01-01T00:00:00.000Z',
      });
      expect(bySource.clip).toMatchObject({ hash_verified: false });
      expect(bySource.old.tombstoned_datetime).not.toBeNull();
      expect(bySource.m1.tombstoned_datetime).toBeNull();
      expect(m.exceptions.map((e: any) => e.reason).sort()).toEqual([
        expect.stringContaining('sha1Hash mismatch'),
        'user u3 has no drive',
      ]);
    });

    it('produces the CSV manifest as one rectangular table with summary, item and exception rows', async () => {
      const res = await get(`/v1/collections/${collectionId}/manifest?format=csv`);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      const rows = parseCsv(await res.text());
      const header = rows[0];
      expect(header.slice(0, 4)).toEqual(['record_type', 'onna_id', 'kind', 'source_id']);
      expect(rows.every((r) => r.length === header.length)).toBe(true);
      const col = (r: string[], name: string) => r[header.indexOf(name)];
      expect(rows.slice(1).map((r) => r[0])).toEqual([
        'summary',
        'item',
        'item',
        'item',
        'item',
        'item',
        'exception',
        'exception',
      ]);
      expect(JSON.parse(col(rows[1], 'detail'))).toMatchObject({ counts: { items: 5 } });
      const docRow = rows.find((r) => col(r, 'source_id') === 'doc')!;
      expect(col(docRow, 'name')).toBe('report, final.pdf');
      expect(col(docRow, 'sha256')).toBe(sha256(doc));
      expect(col(docRow, 'hash_verified')).toBe('true');
      expect(
        col(
          rows.find((r) => col(r, 'source_id') === 'clip')!,
          'name',
        ),
      ).toBe(`'=HYPERLINK("x")`);
    });
  });
}
