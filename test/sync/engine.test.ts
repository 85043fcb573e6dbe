import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FsBlobStore } from '../../src/blobs/index.ts';
import type { Database } from '../../src/store/db.ts';
import { newId } from '../../src/store/ids.ts';
import { ItemRepo } from '../../src/store/items.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { RunErrorRepo } from '../../src/store/run-errors.ts';
import { pidNamespaceScope } from '../../src/sync/execution/owner.ts';
import { testDatabases } from '../support/databases.ts';
import { bytesOf, createFakeConnector, sha1, sha256, type FakeSource } from '../support/fake-connector.ts';
import { engineFor, seedCollection, syncOnce, useSyncStore } from '../support/sync-fixtures.ts';

async function readBlob(blobs: FsBlobStore, sha: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await blobs.read(sha)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

for (const database of testDatabases) {
  describe(`sync engine runs and content (${database.name})`, () => {
    let db: Database;
    let blobs: FsBlobStore;
    let dir: string;
    useSyncStore(database, (s) => ({ db, blobs, dir } = s));

    const setup = async (source: FakeSource, typeSync: 'one' | 'auto' | 'arch' = 'one') => {
      let current = source;
      const connector = createFakeConnector({ source: () => current });
      const seeded = await seedCollection(db, { typeSync });
      const engine = engineFor(db, blobs, [connector], { workers: 'none' });
      return { connector, engine, ...seeded, setSource: (s: FakeSource) => (current = s) };
    };

    it('keeps at most one active run per collection, in the database itself', async () => {
      const { engine, collectionId, accountId } = await setup({ units: [] });
      const first = await engine.start(collectionId);
      const second = await engine.start(collectionId);
      expect(first.created).toBe(true);
      expect(second).toEqual({ runId: first.runId, created: false });
      const row = {
        collection_id: collectionId,
        account_id: accountId,
        trigger: 'start',
        status: 'queued',
        created_at: new Date().toISOString(),
      };
      await expect(
        db
          .insertInto('runs')
          .values({ ...row, id: newId('run') } as never)
          .execute(),
      ).rejects.toThrow();
      await engine.runOnce(first.runId);
      const third = await engine.start(collectionId);
      expect(third.created).toBe(true);
      expect(third.runId).not.toBe(first.runId);
    });

    it('offers queued runs, runs with an expired lease and runs of a dead process in this PID namespace, not live ones', async () => {
      const { engine } = await setup({ units: [] });
      const future = new Date(Date.now() + 600_000).toISOString();
      const past = new Date(Date.now() - 1000).toISOString();
      const host = os.hostname();
      const scope = pidNamespaceScope();
      expect(scope, 'this test needs /proc').not.toBeNull();
      const [bootId, inode] = scope!.split('.');
      const cases = {
        queued: { status: 'queued', lease_owner: null, lease_expires_at: null },
        expired: { status: 'running', lease_owner: 'elsewhere:-:1:a', lease_expires_at: past },
        deadOwner: { status: 'running', lease_owner: `${host}:${scope}:99999999:b`, lease_expires_at: future },
        liveOwner: { status: 'running', lease_owner: `${host}:${scope}:${process.ppid}:c`, lease_expires_at: future },
        otherHost: { status: 'running', lease_owner: `elsewhere:${scope}:99999999:d`, lease_expires_at: future },
        // Containers sharing this host name: the pid means nothing here, whether or not it exists.
        otherNamespace: {
          status: 'running',
          lease_owner: `${host}:${bootId}.${Number(inode) + 1}:99999999:e`,
          lease_expires_at: future,
        },
        otherBoot: {
          status: 'running',
          lease_owner: `${host}:00000000-0000-4000-8000-000000000000.${inode}:99999999:f`,
          lease_expires_at: future,
        },
        unknownScope: { status: 'running', lease_owner: `${host}:-:99999999:g`, lease_expires_at: future },
        // Written before owners carried a scope.
        legacy: { status: 'running', lease_owner: `${host}:99999999:h`, lease_expires_at: future },
        finished: { status: 'succeeded', lease_owner: null, lease_expires_at: null },
      };
      const ids: Record<string, string> = {};
      for (const [name, c] of Object.entries(cases)) {
        const { collectionId, accountId } = await seedCollection(db);
        ids[name] = newId('run');
        await db
          .insertInto('runs')
          .values({
            id: ids[name],
            collection_id: collectionId,
            account_id: accountId,
            trigger: 'start',
            created_at: new Date().toISOString(),
            ...c,
          })
          .execute();
      }
      const offered = await engine.claimableRunIds(100);
      for (const name of ['queued', 'expired', 'deadOwner']) expect(offered, name).toContain(ids[name]);
      for (const name of [
        'liveOwner',
        'otherHost',
        'otherNamespace',
        'otherBoot',
        'unknownScope',
        'legacy',
        'finished',
      ])
        expect(offered, name).not.toContain(ids[name]);
      for (const name of ['liveOwner', 'otherNamespace', 'legacy'])
        expect((await engine.runOnce(ids[name])).status, name).toBe('not_claimed');
      expect(engine.owner.startsWith(`${host}:${scope}:${process.pid}:`)).toBe(true);
      await db.updateTable('runs').set({ status: 'cancelled' }).where('id', 'in', Object.values(ids)).execute();
    });

    it('streams content into verified, content-addressed blobs and records counters', async () => {
      const a = bytesOf('engine-a', 100_000);
      const b = bytesOf('engine-b', 10);
      const { engine, collectionId, connector } = await setup({
        units: [
          {
            items: [
              { kind: 'file', sourceId: 'a', content: a },
              { kind: 'folder', sourceId: 'dir' },
            ],
          },
          { items: [{ kind: 'file', sourceId: 'b', content: b, hash: 'none' }] },
        ],
      });
      const { runId, outcome } = await syncOnce(engine, collectionId);
      expect(outcome.status).toBe('succeeded');
      const items = await new ItemRepo(db).list(collectionId, {}, { limit: 10 });
      const byId = Object.fromEntries(items.rows.map((r) => [r.source_id, r]));
      expect(byId.a).toMatchObject({
        sha256: sha256(a),
        size: a.length,
        hash_verified: 1,
        provider_hash_type: 'sha1Hash',
        provider_hash_value: sha1(a),
        run_id: runId,
        content_state: 'stored',
      });
      expect(byId.b).toMatchObject({ sha256: sha256(b), hash_verified: null, provider_hash_type: null });
      expect(byId.dir).toMatchObject({ sha256: null, content_state: 'none', kind: 'folder' });
      expect(byId.a.md5).toMatch(/^[0-9a-f]{32}$/);
      expect((await readBlob(blobs, sha256(a))).equals(a)).toBe(true);
      const run = await new RunRepo(db).get(runId);
      expect(run).toMatchObject({
        status: 'succeeded',
        listed: 3,
        collected: 3,
        unchanged: 0,
        failed: 0,
        bytes: a.length + b.length,
      });
      expect(JSON.parse(run!.checkpoint!)).toEqual({ state: { unit: 2 } });
      expect(connector.calls.opens.get('a')).toEqual([0]);
      const c = await db
        .selectFrom('collections')
        .select(['sync_status', 'next_sync_at'])
        .where('id', '=', collectionId)
        .executeTakeFirstOrThrow();
      expect(c).toEqual({ sync_status: 'synced', next_sync_at: null });
    });

    it('stores identical content once and counts its references', async () => {
      const same = bytesOf('engine-dedup', 5000);
      const first = await setup({
        units: [
          {
            items: [
              { kind: 'file', sourceId: 'x', content: same },
              { kind: 'file', sourceId: 'y', content: same },
            ],
          },
        ],
      });
      const second = await setup({ units: [{ items: [{ kind: 'file', sourceId: 'z', content: same }] }] });
      await syncOnce(first.engine, first.collectionId);
      await syncOnce(second.engine, second.collectionId);
      const ref = await db
        .selectFrom('blob_refs')
        .selectAll()
        .where('sha256', '=', sha256(same))
        .executeTakeFirstOrThrow();
      expect(ref.refs).toBe(3);
      // kept once: as a row of the small-blob table (5,000 bytes: the default store's database tier), no file too
      const dirOf = path.dirname(blobs.pathFor(sha256(same)));
      const files = fs.existsSync(dirOf) ? fs.readdirSync(dirOf).filter((f) => f === sha256(same)) : [];
      const rows = await db.selectFrom('small_blobs').select('sha256').where('sha256', '=', sha256(same)).execute();
      expect(files.length + rows.length).toBe(1);
      expect(await blobs.has(sha256(same))).toBe(true);
    });

    it('does not download unchanged content again and replaces changed content', async () => {
      const v1 = bytesOf('engine-v1', 3000);
      const v2 = bytesOf('engine-v2', 3000);
      const s = await setup({ units: [{ items: [{ kind: 'file', sourceId: 'doc', content: v1, version: 'e1' }] }] });
      await syncOnce(s.engine, s.collectionId);
      const second = await syncOnce(s.engine, s.collectionId);
      expect(s.connector.calls.opens.get('doc')).toEqual([0]);
      expect(await new RunRepo(db).get(second.runId)).toMatchObject({
        listed: 1,
        unchanged: 1,
        collected: 0,
        bytes: 0,
      });

      s.setSource({ units: [{ items: [{ kind: 'file', sourceId: 'doc', content: v2, version: 'e2' }] }] });
      const third = await syncOnce(s.engine, s.collectionId);
      expect(await new RunRepo(db).get(third.runId)).toMatchObject({ collected: 1, unchanged: 0 });
      const item = (await new ItemRepo(db).list(s.collectionId, {}, { limit: 5 })).rows[0];
      expect(item).toMatchObject({ sha256: sha256(v2), version: 'e2', run_id: third.runId });
      expect(await blobs.has(sha256(v1))).toBe(false);
      expect(await blobs.has(sha256(v2))).toBe(true);
    });

    it('re-downloads once on a provider hash mismatch, then records a persistent one', async () => {
      const good = bytesOf('engine-corrupt-once', 4000);
      const bad = bytesOf('engine-bad', 4000);
      const s = await setup({
        units: [
          {
            items: [
              { kind: 'file', sourceId: 'flaky', content: good, hash: 'corrupt-once' },
              { kind: 'file', sourceId: 'wrong', content: bad, hash: 'bad' },
            ],
          },
        ],
      });
      const { runId } = await syncOnce(s.engine, s.collectionId);
      expect(s.connector.calls.opens.get('flaky')).toEqual([0, 0]);
      expect(s.connector.calls.opens.get('wrong')).toEqual([0, 0]);
      const rows = (await new ItemRepo(db).list(s.collectionId, {}, { limit: 5 })).rows;
      const flaky = rows.find((r) => r.source_id === 'flaky')!;
      const wrong = rows.find((r) => r.source_id === 'wrong')!;
      expect(flaky).toMatchObject({ sha256: sha256(good), hash_verified: 1 });
      expect(wrong).toMatchObject({ sha256: sha256(bad), hash_verified: 0, provider_hash_value: '0'.repeat(40) });
      const errors = await new RunErrorRepo(db).ofRun(runId, 10);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ source_id: 'wrong', kind: 'file' });
      expect(errors[0].reason).toContain('sha1Hash mismatch');
      // The corrupted first download of `flaky` was committed, rejected and then deleted.
      const corrupted = Buffer.from(good);
      corrupted[0] = corrupted[0] ^ 0xff;
      expect(await blobs.has(sha256(corrupted))).toBe(false);
    });

    it('resumes a broken stream with a range when the source supports it, else starts the blob over', async () => {
      const big = bytesOf('engine-ranged', 200_000);
      const other = bytesOf('engine-unranged', 200_000);
      const s = await setup({
        units: [
          {
            items: [
              { kind: 'file', sourceId: 'r', content: big, breakAfter: 70_000, ranged: true },
              { kind: 'file', sourceId: 'u', content: other, breakAfter: 70_000 },
            ],
          },
        ],
      });
      await syncOnce(s.engine, s.collectionId);
      expect(s.connector.calls.opens.get('r')).toEqual([0, 70_000]);
      expect(s.connector.calls.opens.get('u')).toEqual([0, 70_000]);
      const rows = (await new ItemRepo(db).list(s.collectionId, {}, { limit: 5 })).rows;
      expect(rows.find((r) => r.source_id === 'r')).toMatchObject({ sha256: sha256(big), hash_verified: 1 });
      expect(rows.find((r) => r.source_id === 'u')).toMatchObject({ sha256: sha256(other), hash_verified: 1 });
      expect((await readBlob(blobs, sha256(big))).equals(big)).toBe(true);
      expect(fs.readdirSync(path.join(dir, 'tmp'))).toEqual([]);
    });

    it('records connector errors and items of unknown kinds without stopping the run', async () => {
      const s = await setup({
        units: [
          {
            items: [
              { kind: 'spreadsheet', sourceId: 'odd' },
              { kind: 'meeting', sourceId: 'm1' },
            ],
            errors: ['user u2 has no drive'],
          },
        ],
      });
      const { runId, outcome } = await syncOnce(s.engine, s.collectionId);
      expect(outcome.status).toBe('completed_with_errors');
      const errors = await new RunErrorRepo(db).ofRun(runId, 10);
      expect(errors.map((e) => e.reason).sort()).toEqual([
        'connector produced an item of unknown kind "spreadsheet"',
        'user u2 has no drive',
      ]);
      expect(await new RunRepo(db).get(runId)).toMatchObject({ listed: 2, collected: 1, failed: 2, error_count: 2 });
    });
  });
}
