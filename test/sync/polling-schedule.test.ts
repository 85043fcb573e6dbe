import { describe, expect, it } from 'vitest';
import type { FsBlobStore } from '../../src/blobs/index.ts';
import { createOneDriveConnector } from '../../src/connectors/onedrive/index.ts';
import type { Connector } from '../../src/connectors/types.ts';
import type { Database } from '../../src/store/db.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { testDatabases } from '../support/databases.ts';
import { createFakeConnector } from '../support/fake-connector.ts';
import { engineFor, seedCollection, syncOnce, useSyncStore } from '../support/sync-fixtures.ts';

/**
 * The OneDrive connector's own event-mode rule (src/connectors/onedrive/event-mode.ts), grafted onto a fake source:
 * a grant whose `roles` lack Files.ReadWrite.All polls; 20 RU/s and two drives give 5 minutes.
 */
const oneDrive = createOneDriveConnector({
  clientId: 'c',
  clientSecret: 's',
  loginUrl: 'http://127.0.0.1:9',
  graphUrl: 'http://127.0.0.1:9/v1.0',
  budget: { ratePerSecond: 20 },
});
const POLLING_MINUTES = 5;
const INTERVAL_MINUTES = 30;
const readOnly = {
  access_token: 'a0',
  refresh_token: 'r0',
  expires_at: new Date(Date.now() + 3600_000).toISOString(),
  roles: ['Files.Read.All', 'User.Read.All'],
};
const writable = { ...readOnly, roles: ['Files.Read.All', 'Files.ReadWrite.All', 'User.Read.All'] };
const filters = { alice: { all_selected: true }, bob: { all_selected: true } };

for (const database of testDatabases) {
  describe(`polling-mode collections are synced at their polling interval (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    let offsetMs = 0;
    const start = Date.UTC(2026, 0, 5, 9, 0, 0);
    const clock = () => new Date(start + offsetMs);
    useSyncStore(database, (s) => ({ db, blobs } = s));

    const setup = async (grant: typeof readOnly, split: boolean) => {
      const fake = createFakeConnector({
        source: () => ({
          units: [
            { items: [], custodian: { key: 'alice' } },
            { items: [], custodian: { key: 'bob' } },
          ],
        }),
        split,
      });
      const connector: Connector = { ...fake, eventMode: oneDrive.eventMode };
      const seeded = await seedCollection(db, { typeSync: 'auto', grant, filters });
      const engine = engineFor(db, blobs, [connector], { workers: 'none', clock, intervalMinutes: INTERVAL_MINUTES });
      return { engine, ...seeded };
    };
    const nextSyncAt = async (id: string) =>
      (await db.selectFrom('collections').select('next_sync_at').where('id', '=', id).executeTakeFirstOrThrow())
        .next_sync_at;
    const queued = async (id: string) => (await new RunRepo(db).active(id))?.trigger;

    for (const split of [false, true]) {
      it(`${split ? 'fanned out into units' : 'unsplit'}: the next run is due after the polling interval, and the scheduler queues it then`, async () => {
        offsetMs = 0;
        const polling = await setup(readOnly, split);
        const subscribed = await setup(writable, split);
        expect((await syncOnce(polling.engine, polling.collectionId)).outcome.status).toBe('succeeded');
        if (split)
          expect(
            await db
              .selectFrom('unit_jobs')
              .select('unit_key')
              .where('run_id', '=', (await new RunRepo(db).latest(polling.collectionId))!.id)
              .execute(),
          ).toHaveLength(2);
        await syncOnce(subscribed.engine, subscribed.collectionId);
        expect(await nextSyncAt(polling.collectionId)).toBe(new Date(start + POLLING_MINUTES * 60_000).toISOString());
        expect(await nextSyncAt(subscribed.collectionId)).toBe(
          new Date(start + INTERVAL_MINUTES * 60_000).toISOString(),
        );

        offsetMs = POLLING_MINUTES * 60_000 - 1000;
        await polling.engine.scheduler.tick();
        expect(await queued(polling.collectionId)).toBeUndefined();
        offsetMs = POLLING_MINUTES * 60_000;
        await polling.engine.scheduler.tick();
        expect(await queued(polling.collectionId)).toBe('schedule');
        expect(await queued(subscribed.collectionId)).toBeUndefined();
        await polling.engine.cancel(polling.collectionId);
        offsetMs = 0;
      });
    }
  });
}
