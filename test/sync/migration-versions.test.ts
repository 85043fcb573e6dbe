import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.ts';
import { newId } from '../../src/store/ids.ts';
import { previousVersionsOf } from '../../src/store/items.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { testDatabases, underMigrationLock } from '../support/databases.ts';

for (const database of testDatabases) {
  describe(`migration 005_versions on data written before it (${database.name})`, () => {
    let db: Database;
    let close: () => Promise<void>;
    let migrator: Migrator;
    const locked = <T>(work: () => Promise<T>) => underMigrationLock(db, database.name === 'postgres', work);

    beforeAll(async () => {
      const opened = await database.open();
      ({ db, close } = opened);
      migrator = new Migrator({
        db,
        provider: { getMigrations: async () => migrations },
        ...(opened.schema && { migrationTableSchema: opened.schema }),
      });
      const down = await locked(() => migrator.migrateTo('004_listing'));
      expect(down.error).toBeUndefined();
    });
    afterAll(async () => close());

    it('counts the references of arch versions kept before, and turns closed captions and timelines into transcripts', async () => {
      const legacy = db as unknown as Kysely<any>;
      const at = new Date().toISOString();
      const row = (kind: string, sourceId: string, previous: unknown[] | null) => ({
        id: newId('itm'),
        collection_id: 'col_m',
        account_id: 'acc_m',
        kind,
        source_id: sourceId,
        name: sourceId,
        path: `/${sourceId}`,
        custodian: 'u1',
        size: 1,
        mime_type: null,
        sha256: 'c'.repeat(64),
        md5: null,
        provider_hash_type: null,
        provider_hash_value: null,
        hash_verified: null,
        created_datetime: null,
        modified_datetime: null,
        collected_datetime: at,
        deleted_at_source: null,
        tombstoned_at: null,
        content_state: 'stored',
        holds_ref: 1,
        run_id: 'run_1',
        version: '3',
        metadata: JSON.stringify({ file_type: kind === 'timeline' ? 'TIMELINE' : 'CC' }),
        text: null,
        previous_versions: previous === null ? null : JSON.stringify(previous),
        last_seen_run_id: null,
        first_seen_at: at,
        updated_at: at,
      });
      const old = (n: number) => ({
        sha256: String(n).repeat(64),
        md5: null,
        size: n,
        version: String(n),
        modified_datetime: null,
        run_id: `run_${n}`,
        collected_datetime: at,
        replaced_at: at,
      });
      await legacy
        .insertInto('items')
        .values([
          row('file', 'f', [old(1), old(2)]),
          row('closed_caption', 'u|CC|t', null),
          row('timeline', 'u|TIMELINE|t', null),
        ])
        .execute();

      const up = await locked(() => migrator.migrateToLatest());
      expect(up.error).toBeUndefined();
      const rows = await db
        .selectFrom('items')
        .selectAll()
        .where('collection_id', '=', 'col_m')
        .orderBy('source_id')
        .execute();
      expect(rows.map((r) => [r.source_id, r.kind, r.version_refs])).toEqual([
        ['f', 'file', 2],
        ['u|CC|t', 'transcript', 0],
        ['u|TIMELINE|t', 'transcript', 0],
      ]);
      // Old entries read as complete versions that hold their content.
      expect(previousVersionsOf(rows[0])).toMatchObject([
        {
          sha256: '1'.repeat(64),
          holds_ref: true,
          content_state: 'stored',
          run_id: 'run_1',
          name: null,
          metadata: null,
        },
        { sha256: '2'.repeat(64), holds_ref: true, version: '2' },
      ]);
    });
  });
}
