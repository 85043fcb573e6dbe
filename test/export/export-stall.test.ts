import { PassThrough, type Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { FsBlobStore } from '../../src/blobs/index.ts';
import type { BlobStore } from '../../src/blobs/types.ts';
import { SigningKeys } from '../../src/export/keys.ts';
import { createExporter } from '../../src/export/runner.ts';
import { createDocumentReader } from '../../src/search/index.ts';
import type { Database } from '../../src/store/db.ts';
import { EventRepo } from '../../src/store/events.ts';
import { ExportRepo } from '../../src/store/exports.ts';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector } from '../support/fake-connector.ts';
import { engineFor, seedCollection, silentLog, syncOnce, testSealer, useSyncStore } from '../support/sync-fixtures.ts';

const STALL_SECONDS = 60;

/**
 * An export watched like a run (UNIT_STALL_SECONDS): one whose package grows by nothing (a blob read that hangs,
 * and ignores the signal) is stopped, retried, and after 3 stalled attempts fails. Time passes on an injected
 * clock; the real wait is the watchdog's check interval only.
 */
for (const database of testDatabases) {
  describe(`exports that make no progress are stopped and end (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    useSyncStore(database, (s) => ({ db, blobs } = s));

    /**
     * Exports a synced collection whose stored content never arrives (a read that stays open and silent, whatever the
     * export's signal says), stopping each attempt as `stops` says: STALL_SECONDS passing without progress, or this
     * process shutting down (the read then fails, as a closed connection would), or this process taking it up while it
     * is stopping.
     */
    const exportStopped = async (stops: Array<'stall' | 'shutdown' | 'taken while stopping'>) => {
      const connector = createFakeConnector({
        source: () => ({ units: [{ items: [{ kind: 'file', sourceId: 'a', content: bytesOf('stall', 5000) }] }] }),
      });
      const { collectionId } = await seedCollection(db);
      const engine = engineFor(db, blobs, [connector], { workers: 'none' });
      expect((await syncOnce(engine, collectionId)).outcome.status).toBe('succeeded');
      await engine.stop();

      const reads: PassThrough[] = [];
      const hanging: BlobStore = Object.assign(Object.create(blobs) as BlobStore, {
        read: async (): Promise<Readable> => {
          const stream = new PassThrough();
          reads.push(stream);
          return stream;
        },
      });
      let offsetMs = 0;
      const clock = () => new Date(Date.now() + offsetMs);
      const documents = createDocumentReader();
      // one exporter per process: a shutdown ends it, and the next attempt is another process's
      const newExporter = () =>
        createExporter({
          db,
          blobs: hanging,
          documents,
          keys: new SigningKeys(db, testSealer),
          log: silentLog,
          owner: 'test-owner',
          clock,
          // a lease far longer than the test: a stopped attempt is taken up again only if it was given back
          leaseMs: 600_000,
          stallMs: STALL_SECONDS * 1000,
        });
      let exporter = newExporter();
      const collection = await db
        .selectFrom('collections')
        .select('account_id')
        .where('id', '=', collectionId)
        .executeTakeFirstOrThrow();
      const exportId = `exp_stall_${database.name}_${stops.length}`;
      await new ExportRepo(db).create({
        id: exportId,
        account_id: collection.account_id,
        collection_id: collectionId,
        options: JSON.stringify({ items: {}, chat_format: 'json', dedupe: 'none' }),
        created_at: clock().toISOString(),
      });

      const outcomes: string[] = [];
      for (const stop of stops) {
        // as the sweep does: a stopped attempt released its lease, and the export is taken again once claimable
        for (let n = 0; n < 500 && !(await exporter.claimable(10)).includes(exportId); n++)
          await new Promise((r) => setTimeout(r, 10));
        if (stop === 'taken while stopping') {
          await exporter.stopAll();
          outcomes.push((await exporter.run(exportId)).status);
          exporter = newExporter();
          continue;
        }
        const i = reads.length;
        const running = exporter.run(exportId);
        for (let n = 0; n < 500 && reads.length <= i; n++) await new Promise((r) => setTimeout(r, 10));
        expect(reads).toHaveLength(i + 1);
        if (stop === 'shutdown') {
          const stopping = exporter.stopAll();
          reads[i].destroy(new Error('connection closed'));
          await stopping;
          exporter = newExporter();
        } else {
          // The package may still grow by a header once the read began (progress): the clock moves on until it stops.
          let settled = false;
          void running.finally(() => (settled = true));
          for (let n = 0; n < 100 && !settled; n++) {
            offsetMs += (STALL_SECONDS + 1) * 1000;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        outcomes.push((await running).status);
      }
      await exporter.stopAll();
      await documents.stop();
      const finished = (await new EventRepo(db).listForCollection(collectionId, 0)).filter(
        (e) => e.type === 'export.finished',
      );
      return { outcomes, row: await new ExportRepo(db).get(exportId), exportId, finished };
    };

    it('a blob read that hangs stops the export at each attempt, and the export ends failed', async () => {
      const { outcomes, row, exportId, finished } = await exportStopped(['stall', 'stall', 'stall']);
      expect(outcomes).toEqual(['interrupted', 'interrupted', 'failed']);
      expect(row).toMatchObject({ status: 'failed', attempt: 3, lease_owner: null });
      expect(row?.error).toMatch(/no progress for UNIT_STALL_SECONDS on each of its 3 attempts/);
      expect(finished.map((e) => e.data)).toEqual([{ export_id: exportId, status: 'failed' }]);
    }, 30_000);

    it("a shutdown is not one of the export's attempts: it fails after its third stall, not before", async () => {
      const { outcomes, row } = await exportStopped([
        'taken while stopping',
        'shutdown',
        'stall',
        'shutdown',
        'stall',
        'shutdown',
        'stall',
      ]);
      expect(outcomes).toEqual(['not_claimed', ...Array(5).fill('interrupted'), 'failed']);
      expect(row).toMatchObject({ status: 'failed', attempt: 3, lease_owner: null });
      expect(row?.error).toMatch(/no progress for UNIT_STALL_SECONDS on each of its 3 attempts/);
    }, 30_000);
  });
}
