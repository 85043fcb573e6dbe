import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectContext, CollectEvent, Connector } from '../../src/connectors/types.ts';
import { isoTimestamp } from '../../src/sync/execution/apply.ts';
import { testDatabases } from '../support/databases.ts';
import { createFakeConnector } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

/** Provider times as Zoom and Graph write them: with and without fractions, with an offset, without a zone, broken. */
const TIMES: Array<[string, string | null, string | null]> = [
  ['zulu', '2024-05-01T10:00:00Z', '2024-05-01T10:00:00.000Z'],
  ['offset', '2024-05-01T12:00:00+02:00', '2024-05-01T10:00:00.000Z'],
  ['fraction', '2024-05-01T09:59:59.1234567Z', '2024-05-01T09:59:59.123Z'],
  ['unzoned', '2024-05-01T10:00:00', '2024-05-01T10:00:00.000Z'],
  ['broken', 'yesterday-ish', null],
];

describe('isoTimestamp', () => {
  it.each(TIMES)('%s', (_name, given, stored) => expect(isoTimestamp(given)).toBe(stored));
  it('keeps absent values absent', () => {
    expect(isoTimestamp(null)).toBeNull();
    expect(isoTimestamp(undefined)).toBeNull();
    expect(isoTimestamp('')).toBeNull();
  });
});

for (const database of testDatabases) {
  describe(`item times are stored in one form (${database.name})`, () => {
    let app: ItemsApp;
    let token: string;
    let collectionId: string;

    beforeAll(async () => {
      const base = createFakeConnector({ source: () => ({ units: [] }) });
      const connector: Connector = {
        ...base,
        async *collect(_ctx: CollectContext): AsyncIterable<CollectEvent> {
          for (const [name, given] of TIMES) {
            yield {
              type: 'item',
              item: {
                kind: 'meeting',
                sourceId: name,
                name: `standup ${name}`,
                path: `/${name}`,
                custodian: 'u1',
                createdAt: given,
                modifiedAt: given,
                metadata: { start_time: given },
              },
            };
          }
        },
      };
      app = await startItemsApp(database, [connector]);
      token = await app.token('acme');
      ({ collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer }));
      const start = (await (await app.call(token, 'POST', `/v1/collections/${collectionId}/start`)).json()) as Json;
      expect((await app.engine.runOnce(start.run_id)).status).toBe('succeeded');
    });
    afterAll(async () => app?.close());

    it('the items API shows toISOString() times; the provider value stays in metadata', async () => {
      const items = ((await (await app.call(token, 'GET', `/v1/collections/${collectionId}/items`)).json()) as Json)
        .items as Json[];
      for (const [name, given, stored] of TIMES) {
        const item = items.find((i) => i.source_id === name)!;
        expect(item, name).toMatchObject({
          created_datetime: stored,
          modified_datetime: stored,
          metadata: { start_time: given },
        });
        expect(item.collected_datetime).toBe(new Date(item.collected_datetime).toISOString());
      }
    });

    it('search date filters compare the instants, whatever form the provider used', async () => {
      const search = async (body: Json) => {
        const res = await app.call(token, 'POST', '/v1/search', {
          json: { query: 'standup', collection_ids: [collectionId], ...body },
        });
        expect(res.status).toBe(200);
        return (((await res.json()) as Json).results as Json[]).map((r) => r.item.source_id as string).sort();
      };
      expect(await search({ date_from: '2024-05-01T10:00:00Z', date_to: '2024-05-01T10:00:00Z' })).toEqual([
        'offset',
        'unzoned',
        'zulu',
      ]);
      expect(await search({ date_to: '2024-05-01T09:59:59Z' })).toEqual(['fraction']);
    });
  });
}
