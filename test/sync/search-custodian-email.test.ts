import { describe, expect, it } from 'vitest';
import type { FsBlobStore } from '../../src/blobs/index.ts';
import { searchItems } from '../../src/search/service.ts';
import type { Database } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, type FakeSource } from '../support/fake-connector.ts';
import { engineFor, seedCollection, syncOnce, useSyncStore } from '../support/sync-fixtures.ts';

/**
 * The search custodians filter is answered by the index's custodian tokens, so they must stay those of the item
 * row: a run that no longer knows the custodian's e-mail keeps the stored one on the row, and in the index.
 */
for (const database of testDatabases) {
  describe(`search custodian e-mail after a run without it (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    useSyncStore(database, (s) => ({ db, blobs } = s));

    it('finds an item changed by a run that gave no e-mail by the e-mail its row keeps', async () => {
      const unit = (email: string | undefined, content: string): FakeSource => ({
        units: [
          {
            custodian: { key: 'u1', email },
            items: [
              {
                kind: 'file',
                sourceId: 'f1',
                name: 'otter.txt',
                custodian: 'u1',
                version: content,
                content: bytesOf(content, 50),
              },
            ],
          },
        ],
      });
      let source = unit('u1@example.com', 'first');
      const seeded = await seedCollection(db, { typeSync: 'auto' });
      const engine = engineFor(db, blobs, [createFakeConnector({ source: () => source })], { workers: 'none' });
      const byEmail = async () =>
        (
          await searchItems(
            db,
            seeded.accountId,
            { query: 'otter', custodians: ['U1@example.com'] },
            { kinds: ['file'] },
          )
        ).hits.map((h) => [h.item.custodian, h.item.custodian_email]);

      expect((await syncOnce(engine, seeded.collectionId)).outcome.status).toBe('succeeded');
      expect(await byEmail()).toEqual([['u1', 'u1@example.com']]);
      // a new version, listed without the e-mail
      source = unit(undefined, 'second');
      expect((await syncOnce(engine, seeded.collectionId)).outcome.status).toBe('succeeded');
      expect(await byEmail()).toEqual([['u1', 'u1@example.com']]);
    });
  });
}
