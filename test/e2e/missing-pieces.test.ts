import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, Grant } from '../../src/connectors/types.ts';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

const memo = bytesOf('missing-pieces-memo', 5000);

for (const database of testDatabases) {
  describe(`wallet deletion, hold history and export audit events (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    let other: string;
    let source: FakeSource = { units: [] };
    const revoked: Grant[] = [];
    const fake = createFakeConnector({ source: () => source });
    // A connector whose OAuth offers revocation: DELETE of its wallet revokes the grant.
    const revocable: Connector = {
      ...fake,
      type: 'revocable',
      configType: 'revocable',
      oauth: { ...fake.oauth, revoke: async (g: Grant) => void revoked.push(g) },
    };

    beforeAll(async () => {
      app = await startItemsApp(database, [fake, revocable]);
      token = await app.token('acme');
      other = await app.token('globex');
    });
    afterAll(async () => app?.close());

    const json = async (res: Response, status?: number) => {
      const body = (await res.json()) as Json;
      if (status !== undefined) expect(res.status, JSON.stringify(body)).toBe(status);
      return body;
    };
    const audit = async (action: string) =>
      (await json(await app.call(token, 'GET', `/v1/audit?action=${action}&limit=200`), 200)).items as Json[];

    it('DELETE /v1/wallet/{id}: 409 naming the collection while one uses it, then 204, gone, revoked where the provider offers it', async () => {
      const seeded = await seedCollection(app.ctx.db, {
        account: 'acme',
        sealer: app.ctx.sealer,
        type: 'revocable',
        grant: { access_token: 'at-1', refresh_token: 'rt-1' },
      });
      const inUse = await app.call(token, 'DELETE', `/v1/wallet/${seeded.walletId}`);
      const refusal = await json(inUse, 409);
      expect(refusal.code).toBe('00409_in_use');
      expect(refusal.detail).toContain(seeded.collectionId);
      expect((await app.call(token, 'GET', `/v1/wallet/${seeded.walletId}`)).status).toBe(200);
      expect(revoked).toHaveLength(0);

      expect((await app.call(other, 'DELETE', `/v1/wallet/${seeded.walletId}`)).status).toBe(404);
      expect((await app.call(token, 'DELETE', `/v1/collections/${seeded.collectionId}`)).status).toBe(204);
      expect((await app.call(token, 'DELETE', `/v1/wallet/${seeded.walletId}`)).status).toBe(204);
      expect(revoked).toEqual([expect.objectContaining({ access_token: 'at-1', refresh_token: 'rt-1' })]);
      expect((await app.call(token, 'GET', `/v1/wallet/${seeded.walletId}`)).status).toBe(404);
      expect((await app.call(token, 'DELETE', `/v1/wallet/${seeded.walletId}`)).status).toBe(404);
      const listed = await json(await app.call(token, 'GET', '/v1/wallet?limit=200'), 200);
      expect(listed.items.map((w: Json) => w.onna_id)).not.toContain(seeded.walletId);

      const entries = (await audit('wallet.delete')).filter((e) => e.target_id === seeded.walletId);
      expect(entries.map((e) => [e.status_code, e.outcome])).toEqual([
        [404, 'failure'],
        [204, 'success'],
        [409, 'failure'],
      ]);
      expect(entries[1].detail).toMatchObject({ provider_revocation: 'revoked' });
    });

    it('a wallet whose provider offers no revocation is deleted all the same, and the audit entry says so', async () => {
      const seeded = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
      expect((await app.call(token, 'DELETE', `/v1/collections/${seeded.collectionId}`)).status).toBe(204);
      expect((await app.call(token, 'DELETE', `/v1/wallet/${seeded.walletId}`)).status).toBe(204);
      const [entry] = (await audit('wallet.delete')).filter((e) => e.target_id === seeded.walletId);
      expect(entry?.detail).toMatchObject({ provider_revocation: 'not_offered' });
    });

    it('a released hold keeps its history: GET answers it, the list shows both, ?status= filters, releasing again is 409', async () => {
      const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
      const kept = (
        await json(
          await app.call(token, 'POST', '/v1/legalhold/holds', {
            json: { name: 'Kept', collection_ids: [collectionId] },
          }),
          201,
        )
      ).onna_id;
      const gone = (
        await json(
          await app.call(token, 'POST', '/v1/legalhold/holds', {
            json: { name: 'Released', collection_ids: [collectionId] },
          }),
          201,
        )
      ).onna_id;
      expect((await app.call(token, 'DELETE', `/v1/legalhold/holds/${gone}`)).status).toBe(204);

      const [releaseEntry] = (await audit('legalhold.release')).filter((e) => e.target_id === gone);
      const released = await json(await app.call(token, 'GET', `/v1/legalhold/holds/${gone}`), 200);
      expect(released).toMatchObject({
        onna_id: gone,
        name: 'Released',
        status: 'released',
        collection_ids: [collectionId],
        released_by: releaseEntry.client_id,
      });
      expect(Date.parse(released.released_at)).toBeGreaterThanOrEqual(Date.parse(released.creation_datetime));
      expect(await json(await app.call(token, 'GET', `/v1/legalhold/holds/${kept}`), 200)).toMatchObject({
        status: 'active',
        released_at: null,
        released_by: null,
      });

      const ids = async (query: string) =>
        (await json(await app.call(token, 'GET', `/v1/legalhold/holds?limit=200${query}`), 200)).items.map(
          (h: Json) => h.onna_id,
        );
      expect(await ids('')).toEqual(expect.arrayContaining([kept, gone]));
      expect(await ids('&status=active')).toContain(kept);
      expect(await ids('&status=active')).not.toContain(gone);
      expect(await ids('&status=released')).toContain(gone);
      expect(await ids('&status=released')).not.toContain(kept);
      expect((await app.call(token, 'GET', '/v1/legalhold/holds?status=gone')).status).toBe(400);

      const again = await json(await app.call(token, 'DELETE', `/v1/legalhold/holds/${gone}`), 409);
      expect(again.code).toBe('00409_hold_released');
      expect((await app.call(other, 'GET', `/v1/legalhold/holds/${gone}`)).status).toBe(404);
      // the released hold no longer blocks deletion; the active one still does
      expect((await app.call(token, 'DELETE', `/v1/collections/${collectionId}`)).status).toBe(409);
    });

    it('each answered download (range requests included) is a content.download entry; manifest and reconciliation exports are audited', async () => {
      const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
      source = {
        units: [{ items: [{ kind: 'file', sourceId: 'memo', name: 'memo.txt', content: memo, version: '1' }] }],
      };
      const start = await json(await app.call(token, 'POST', `/v1/collections/${collectionId}/start`));
      expect((await app.engine.runOnce(start.run_id)).status).toBe('succeeded');
      const [item] = (await json(await app.call(token, 'GET', `/v1/collections/${collectionId}/items`), 200))
        .items as Json[];
      const content = `/v1/collections/${collectionId}/items/${item.onna_id}/content`;

      const whole = await app.call(token, 'GET', content);
      expect(whole.status).toBe(200);
      await whole.arrayBuffer();
      const part = await app.call(token, 'GET', content, { headers: { range: 'bytes=0-99' } });
      expect(part.status).toBe(206);
      expect((await part.arrayBuffer()).byteLength).toBe(100);
      const downloads = (await audit('content.download')).filter((e) => e.target_id === item.onna_id);
      expect(downloads.map((e) => [e.status_code, e.outcome, e.detail?.range, e.detail?.collection_id])).toEqual([
        [206, 'success', 'bytes=0-99', collectionId],
        [200, 'success', null, collectionId],
      ]);
      expect((await app.call(other, 'GET', content)).status).toBe(404);
      expect((await audit('content.download')).filter((e) => e.target_id === item.onna_id)).toHaveLength(2);

      for (const format of ['json', 'csv']) {
        const res = await app.call(token, 'GET', `/v1/collections/${collectionId}/manifest?format=${format}`);
        expect(res.status).toBe(200);
        await res.text();
      }
      const manifests = (await audit('manifest.export')).filter((e) => e.target_id === collectionId);
      expect(manifests.map((e) => [e.status_code, e.detail?.format])).toEqual([
        [200, 'csv'],
        [200, 'json'],
      ]);

      const csv = await app.call(
        token,
        'GET',
        `/v1/collections/${collectionId}/runs/${start.run_id}/reconciliation?format=csv&rows=exceptions`,
      );
      expect(csv.status).toBe(200);
      await csv.text();
      const [export1] = (await audit('reconciliation.export')).filter((e) => e.target_id === start.run_id);
      expect(export1).toMatchObject({
        status_code: 200,
        outcome: 'success',
        detail: { collection_id: collectionId, format: 'csv', rows: 'exceptions' },
      });
    });
  });
}
