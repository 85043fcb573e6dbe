import {
  InsertQueryNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobRefRepo } from '../../src/store/blob-refs.ts';
import type { Database } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';

/** Counts the insert statements a handle sends into blob_refs. */
function counted(db: Database): { db: Database; inserts: () => number } {
  let inserts = 0;
  const plugin: KyselyPlugin = {
    transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
      if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'blob_refs') inserts += 1;
      return node;
    },
    async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return result;
    },
  };
  return { db: db.withPlugin(plugin), inserts: () => inserts };
}

const sha = (n: number) => n.toString(16).padStart(64, '0');

for (const database of testDatabases) {
  describe(`notes of committed blobs (${database.name})`, () => {
    let db: Database;
    let close: () => Promise<void>;
    beforeAll(async () => ({ db, close } = await database.open()));
    afterAll(() => close());

    const row = (s: string) => db.selectFrom('blob_refs').selectAll().where('sha256', '=', s).executeTakeFirst();

    it('notes asked together go in fewer statements, and each is written when its promise resolves', async () => {
      const { db: watched, inserts } = counted(db);
      const notes = Array.from({ length: 40 }, (_, i) => i + 1);
      // one repository per writer, as every item writer makes its own
      const written = notes.map(async (n) => {
        await new BlobRefRepo(watched).noteCommitted(sha(n), n, `2026-11-28T03:00:${String(n % 60).padStart(2, '0')}Z`);
        return row(sha(n));
      });
      const rows = await Promise.all(written);
      for (const [i, r] of rows.entries()) expect(r).toMatchObject({ sha256: sha(notes[i]), refs: 0, size: notes[i] });
      expect(inserts()).toBeGreaterThan(0);
      expect(inserts()).toBeLessThanOrEqual(2);
    });

    it('a blob noted twice in one statement keeps the later time; a referenced one keeps its count', async () => {
      const repo = new BlobRefRepo(db);
      await repo.acquire(sha(100), 100, '2026-11-28T01:00:00Z');
      await Promise.all([
        repo.noteCommitted(sha(101), 101, '2026-11-28T02:00:00Z'),
        repo.noteCommitted(sha(101), 101, '2026-11-28T02:30:00Z'),
        repo.noteCommitted(sha(101), 101, '2026-11-28T02:10:00Z'),
        repo.noteCommitted(sha(100), 100, '2026-11-28T02:20:00Z'),
      ]);
      expect(await row(sha(101))).toMatchObject({ refs: 0, updated_at: '2026-11-28T02:30:00Z' });
      expect(await row(sha(100))).toMatchObject({ refs: 1, updated_at: '2026-11-28T02:20:00Z' });
    });

    it('a failed statement rejects every note it carried, and only those; the next notes are written', async () => {
      const repo = new BlobRefRepo(db);
      // the first goes at once; the next two wait for it and go together
      const first = repo.noteCommitted(sha(200), 200, '2026-11-28T03:00:00Z');
      const bad = repo.noteCommitted(sha(201), null as unknown as number, '2026-11-28T03:00:00Z');
      const beside = repo.noteCommitted(sha(202), 202, '2026-11-28T03:00:00Z');
      await expect(first).resolves.toBeUndefined();
      // size is NOT NULL: the statement carrying it fails
      await expect(bad).rejects.toThrow();
      await expect(beside).rejects.toThrow();
      expect(await row(sha(202))).toBeUndefined();
      await repo.noteCommitted(sha(203), 203, '2026-11-28T03:00:01Z');
      expect(await row(sha(203))).toMatchObject({ refs: 0, size: 203 });
      expect(await row(sha(200))).toMatchObject({ refs: 0, size: 200 });
    });
  });
}
