import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectEvent, Connector, ContentSource } from '../../src/connectors/types.ts';
import { docxWith, pdfWith } from '../search/document-fixtures.ts';
import { inertConnectors } from '../search/inert-connectors.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

type Json = Record<string, any>;

const bytesContent = (data: Buffer): ContentSource => ({
  open: async () => ({ body: Readable.from([data]), partial: false }),
});

/** An `edrive` connector whose one run yields the files the test has put in `files`. */
function driveWith(files: { name: string; mimeType: string; data: Buffer }[]): Connector {
  const base = inertConnectors()[1];
  return {
    ...base,
    async *collect() {
      for (const [i, f] of files.entries()) {
        const event: CollectEvent = {
          type: 'item',
          item: {
            kind: 'file',
            sourceId: `f${i}`,
            name: f.name,
            path: `/drive/${f.name}`,
            custodian: 'erin@example.com',
            size: f.data.length,
            mimeType: f.mimeType,
            metadata: {},
          },
          content: bytesContent(f.data),
        };
        yield event;
      }
    },
  };
}

/** docx and PDF files collected by a real sync run are searchable by the words inside them. */
describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'search inside collected docx and PDF files on %s',
  (_name, database) => {
    let t: TestApp;
    let token: string;
    const files: { name: string; mimeType: string; data: Buffer }[] = [];

    const json = async (res: Response) => (await res.json()) as Json;
    const found = async (query: string) =>
      ((await json(await t.call(token, 'POST', '/v1/search', { json: { query } }))).results as Json[]).map(
        (r) => r.item.name as string,
      );

    beforeAll(async () => {
      files.push(
        {
          name: 'Lease terms.docx',
          mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          data: await docxWith(['The tenant shall repaint the mezzanine yearly.']),
        },
        {
          name: 'Invoice.pdf',
          mimeType: 'application/pdf',
          data: pdfWith([['Invoice 88', 'Payment due for the quartz centrifuge']]),
        },
        { name: 'Broken.pdf', mimeType: 'application/pdf', data: Buffer.from('%PDF-1.7 then nothing useful') },
      );
      t = await startTestApp({ database, connectors: () => [inertConnectors()[0], driveWith(files)] });
      token = await t.token('acme');
    });
    afterAll(() => t.close());

    it('finds a word inside a docx and a phrase inside a PDF; a broken PDF is stored all the same', async () => {
      const post = async (path: string, body: Json) =>
        (await json(await t.call(token, 'POST', path, { json: body }))).onna_id as string;
      const ws = await post('/v1/workspaces', { name: 'Property', description: '' });
      const wallet = await post('/v1/wallet', {
        name: 'od',
        credential_type_name: 'Datasource',
        config_type: 'edrive',
      });
      const col = await post('/v1/collections', {
        name: 'drive',
        onna_parent_id: ws,
        type: 'edrive',
        credential_id: wallet,
      });
      await t.runtime.ctx.repos.wallets.setGrant(
        wallet,
        t.runtime.ctx.sealer.seal({ access_token: 'a', refresh_token: 'r', expires_at: '2999-01-01T00:00:00Z' }),
      );
      expect(
        (await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: {}, type_sync: 'arch' } }))
          .status,
      ).toBe(204);
      expect((await t.call(token, 'POST', `/v1/collections/${col}/start`)).status).toBe(200);
      const done = await t.waitForStatus(token, col, ['synced', 'failed', 'error'], 20_000);
      expect(done.sync_status).toBe('synced');

      expect(await found('mezzanine')).toEqual(['Lease terms.docx']);
      expect(await found('"quartz centrifuge"')).toEqual(['Invoice.pdf']);
      expect(await found('name:broken')).toEqual(['Broken.pdf']);
      const stored = await t.runtime.ctx.db
        .selectFrom('items')
        .select(['name', 'content_state'])
        .where('collection_id', '=', col)
        .orderBy('name')
        .execute();
      expect(stored).toEqual([
        { name: 'Broken.pdf', content_state: 'stored' },
        { name: 'Invoice.pdf', content_state: 'stored' },
        { name: 'Lease terms.docx', content_state: 'stored' },
      ]);
    });
  },
);
