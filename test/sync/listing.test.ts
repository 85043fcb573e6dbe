import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type FsBlobStore } from '../../src/blobs/index.ts';
import type { CollectContext, CollectEvent, Connector } from '../../src/connectors/types.ts';
import type { Database } from '../../src/store/db.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, sha256 } from '../support/fake-connector.ts';
import { engineFor, seedCollection, syncOnce, useSyncStore } from '../support/sync-fixtures.ts';

type Step = CollectEvent | { type: 'fail'; message: string } | { type: 'wait_for_abort' };

/** A connector that plays one script per run (the checkpoint it gets decides where a resumed script starts). */
function scripted(scripts: Array<(checkpoint: unknown) => Step[]>): Connector & { runs: number } {
  const base = createFakeConnector({ source: () => ({ units: [] }) });
  const connector = {
    ...base,
    runs: 0,
    async *collect(ctx: CollectContext): AsyncIterable<CollectEvent> {
      const script = scripts[Math.min(connector.runs++, scripts.length - 1)];
      for (const step of script(ctx.checkpoint)) {
        if (step.type === 'fail') throw new Error(step.message);
        if (step.type === 'wait_for_abort') {
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
          continue;
        }
        yield step;
      }
    },
  };
  return connector;
}

const blobOf = (id: string) => bytesOf(`listing-${id}`, 3000);
function file(id: string, custodian = 'u1'): CollectEvent {
  const bytes = blobOf(id);
  return {
    type: 'item',
    item: {
      kind: 'file',
      sourceId: id,
      name: id,
      path: `/${custodian}/${id}`,
      custodian,
      size: bytes.length,
      version: 'v1',
      metadata: {},
    },
    content: { open: async () => ({ body: Readable.from([bytes]), partial: false }) },
  };
}
const folder = (id: string, custodian = 'u1'): CollectEvent => ({
  type: 'item',
  item: { kind: 'folder', sourceId: id, name: id, path: `/${custodian}/${id}`, custodian, version: 'v1', metadata: {} },
});
const complete = (custodian = 'u1', kinds = ['file', 'folder']): CollectEvent => ({
  type: 'listing_complete',
  custodian,
  kinds,
});
const checkpoint = (state: unknown): CollectEvent => ({ type: 'checkpoint', state });

/** Everything of u1 and u2 on the first run. */
const firstRun = () => [file('a'), file('b'), file('c'), folder('dir'), file('other', 'u2'), checkpoint(1)];

for (const database of testDatabases) {
  describe(`complete listings find deletions (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    useSyncStore(database, (s) => ({ db, blobs } = s));

    const rows = async (collectionId: string) => {
      const all = await db.selectFrom('items').selectAll().where('collection_id', '=', collectionId).execute();
      return Object.fromEntries(all.map((r) => [r.source_id, r]));
    };
    const setup = async (connector: Connector, typeSync: 'auto' | 'arch', held = false) => {
      const seeded = await seedCollection(db, { typeSync });
      const engine = engineFor(db, blobs, [connector], { workers: 'none', isHeld: async () => held });
      return { engine, ...seeded };
    };

    it('auto: an item the complete listing did not yield is tombstoned and its content purged; others stay', async () => {
      const connector = scripted([firstRun, () => [file('a'), file('b'), complete('u1', ['file']), checkpoint(2)]]);
      const { engine, collectionId } = await setup(connector, 'auto');
      await syncOnce(engine, collectionId);
      const { runId, outcome } = await syncOnce(engine, collectionId);
      expect(outcome.status).toBe('succeeded');
      const r = await rows(collectionId);
      expect(r.c).toMatchObject({ content_state: 'purged', holds_ref: 0 });
      expect(r.c.tombstoned_at).not.toBeNull();
      expect(r.c.deleted_at_source).not.toBeNull();
      expect(await blobs.has(sha256(blobOf('c')))).toBe(false);
      // Seen unchanged: still there, stamped with the run that saw them.
      for (const id of ['a', 'b'])
        expect(r[id]).toMatchObject({ tombstoned_at: null, content_state: 'stored', last_seen_run_id: runId });
      // Another custodian and a kind the listing did not cover are not touched.
      expect(r.other.tombstoned_at).toBeNull();
      expect(r.dir.tombstoned_at).toBeNull();
      expect(await new RunRepo(db).get(runId)).toMatchObject({ unchanged: 2, collected: 0 });
    });

    it('auto under a legal hold: tombstoned, content kept', async () => {
      const connector = scripted([firstRun, () => [file('a'), complete('u1'), checkpoint(2)]]);
      const { engine, collectionId } = await setup(connector, 'auto', true);
      await syncOnce(engine, collectionId);
      await syncOnce(engine, collectionId);
      const r = await rows(collectionId);
      for (const id of ['b', 'c', 'dir']) expect(r[id].tombstoned_at, id).not.toBeNull();
      expect(r.b).toMatchObject({ content_state: 'stored', holds_ref: 1 });
      expect(await blobs.has(sha256(blobOf('b')))).toBe(true);
    });

    it('arch: unseen items are only marked deleted at the source, and unmarked when they come back', async () => {
      const connector = scripted([
        firstRun,
        () => [file('a'), complete('u1'), checkpoint(2)],
        () => [file('a'), file('b'), complete('u1'), checkpoint(3)],
      ]);
      const { engine, collectionId } = await setup(connector, 'arch');
      await syncOnce(engine, collectionId);
      await syncOnce(engine, collectionId);
      let r = await rows(collectionId);
      for (const id of ['b', 'c', 'dir']) {
        expect(r[id].deleted_at_source, id).not.toBeNull();
        expect(r[id].tombstoned_at, id).toBeNull();
      }
      expect(r.c).toMatchObject({ content_state: 'stored', holds_ref: 1 });
      expect(r.a.deleted_at_source).toBeNull();
      expect(await blobs.has(sha256(blobOf('c')))).toBe(true);
      await syncOnce(engine, collectionId);
      r = await rows(collectionId);
      expect(r.b.deleted_at_source).toBeNull();
      expect(r.c.deleted_at_source).not.toBeNull();
    });

    it('a run interrupted mid-listing and resumed keeps what the first attempt saw', async () => {
      const connector = scripted([
        firstRun,
        (cp) =>
          cp === null
            ? [file('a'), checkpoint('half'), { type: 'wait_for_abort' }]
            : [file('b'), complete('u1', ['file']), checkpoint('end')],
      ]);
      const { engine, collectionId } = await setup(connector, 'auto');
      await syncOnce(engine, collectionId);
      const { runId } = await engine.start(collectionId);
      const shutdown = new AbortController();
      const first = engine.runOnce(runId, { signal: shutdown.signal });
      for (
        let i = 0;
        i < 400 && JSON.parse((await new RunRepo(db).get(runId))?.checkpoint ?? 'null')?.state !== 'half';
        i++
      )
        await new Promise((r) => setTimeout(r, 5));
      shutdown.abort();
      expect((await first).status).toBe('interrupted');
      await new Promise((r) => setTimeout(r, 5));
      expect((await engine.runOnce(runId)).status).toBe('succeeded');
      const r = await rows(collectionId);
      expect(r.a.tombstoned_at).toBeNull();
      expect(r.b.tombstoned_at).toBeNull();
      expect(r.c.tombstoned_at).not.toBeNull();
    });

    it("a retry that resumes a failed run's checkpoint keeps that run's marks", async () => {
      const connector = scripted([
        firstRun,
        (cp) =>
          cp === null
            ? [file('a'), checkpoint('half'), { type: 'fail', message: 'provider outage' }]
            : [file('b'), complete('u1', ['file']), checkpoint('end')],
      ]);
      const { engine, collectionId } = await setup(connector, 'auto');
      await syncOnce(engine, collectionId);
      const failed = await syncOnce(engine, collectionId);
      expect(failed.outcome.status).toBe('failed');
      const { run } = await engine.enqueue(collectionId, 'retry');
      expect(run.listing_run_id).toBe(failed.runId);
      expect((await engine.runOnce(run.id)).status).toBe('succeeded');
      const r = await rows(collectionId);
      expect(r.a).toMatchObject({ tombstoned_at: null, last_seen_run_id: failed.runId });
      expect(r.b).toMatchObject({ tombstoned_at: null, last_seen_run_id: failed.runId });
      expect(r.c.tombstoned_at).not.toBeNull();
    });
  });
}
