import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { createFsBlobStore, type FsBlobStore } from '../../src/blobs/index.ts';
import type { Connector, Grant } from '../../src/connectors/types.ts';
import type { Database } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';
import { engineFor, seedCollection, syncOnce } from '../support/sync-fixtures.ts';
import { MiniEngine, pair, providerContext, selection, testConnector } from './onedrive-harness.ts';

/**
 * A 410 on a stale deltaLink makes the connector enumerate the drive again. The fresh enumeration does not list
 * what was deleted meanwhile, so only the complete listing tells the engine that those files are gone.
 */
describe('OneDrive full enumerations end with a complete listing', () => {
  it('yields listing_complete after a first run and after a 410 resync, never after a change round', async () => {
    const sandbox = await startMicrosoftSandbox({ seed: 21, users: 2, deltaPageSize: 7 });
    try {
      const connector = testConnector(sandbox);
      const alice = sandbox.tenant.users[0].id;
      const e = new MiniEngine(connector, providerContext(connector, await pair(connector)));
      const filters = { [alice]: selection({ all: true }) };
      const first = await e.run(filters);
      expect(first.listings).toEqual([{ custodian: alice, kinds: ['file', 'folder'], unseen: [] }]);

      const files = sandbox.listItems(alice).filter((i) => i.kind === 'file');
      sandbox.mutate.deleteItem(alice, files[0].id);
      const changes = await e.run(filters);
      expect(changes.listings).toEqual([]);
      expect(changes.deleted).toContainEqual({ kind: 'file', sourceId: files[0].id });

      sandbox.mutate.deleteItem(alice, files[1].id);
      sandbox.faults.deltaTokenExpired = true;
      const resync = await e.run(filters);
      expect(resync.deleted).toEqual([]);
      expect(resync.listings).toEqual([
        { custodian: alice, kinds: ['file', 'folder'], unseen: [`file:${files[1].id}`] },
      ]);
    } finally {
      await sandbox.close();
    }
  });
});

for (const database of testDatabases) {
  describe(`files deleted while the delta link was stale (${database.name})`, () => {
    let db: Database;
    let close: () => Promise<void>;
    let blobs: FsBlobStore;
    let dir: string;
    let sandbox: MicrosoftSandbox;
    let connector: Connector;
    let grant: Grant;

    beforeAll(async () => {
      ({ db, close } = await database.open());
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-od-listing-'));
      blobs = createFsBlobStore({ root: dir });
      sandbox = await startMicrosoftSandbox({ seed: 23, users: 3, deltaPageSize: 9 });
      connector = testConnector(sandbox);
      grant = await pair(connector);
    });
    afterAll(async () => {
      await sandbox.close();
      await close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it.each(['auto', 'arch'] as const)('%s: a 410 resync finds them', async (typeSync) => {
      const userId = sandbox.tenant.users[typeSync === 'auto' ? 0 : 1].id;
      const { collectionId } = await seedCollection(db, {
        type: 'edrive',
        typeSync,
        grant,
        filters: { [userId]: selection({ all: true }) },
      });
      const engine = engineFor(db, blobs, [connector], { workers: 'none' });
      expect((await syncOnce(engine, collectionId)).outcome.status).toBe('succeeded');

      const files = sandbox.listItems(userId).filter((i) => i.kind === 'file');
      const doomed = files.slice(0, 2).map((f) => f.id);
      for (const id of doomed) sandbox.mutate.deleteItem(userId, id);
      sandbox.faults.deltaTokenExpired = true;
      const mark = sandbox.requests.length;
      expect((await syncOnce(engine, collectionId)).outcome.status).toBe('succeeded');
      expect(sandbox.requests.slice(mark).some((r) => r.status === 410)).toBe(true);

      const rows = await db.selectFrom('items').selectAll().where('collection_id', '=', collectionId).execute();
      const live = new Set(
        sandbox
          .listItems(userId)
          .filter((i) => i.parentId !== null)
          .map((i) => i.id),
      );
      for (const row of rows) {
        const gone = doomed.includes(row.source_id);
        expect(live.has(row.source_id), row.source_id).toBe(!gone);
        if (typeSync === 'auto') {
          expect(row.tombstoned_at !== null, row.source_id).toBe(gone);
          if (gone) expect(row).toMatchObject({ content_state: 'purged', holds_ref: 0 });
        } else {
          expect(row.tombstoned_at).toBeNull();
          expect(row.deleted_at_source !== null, row.source_id).toBe(gone);
          if (gone) expect(row).toMatchObject({ content_state: 'stored', holds_ref: 1 });
        }
      }
      expect(rows.filter((r) => doomed.includes(r.source_id))).toHaveLength(2);
      expect(rows.length).toBe(live.size + 2);
    });
  });
}
