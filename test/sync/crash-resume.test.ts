import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsBlobStore } from '../../src/blobs/index.ts';
import type { Database } from '../../src/store/db.ts';
import { RunRepo } from '../../src/store/runs.ts';
import { CRASH_ITEMS, crashBytes } from '../support/crash-source.ts';
import { testDatabases } from '../support/databases.ts';
import { childEnv } from '../support/process.ts';
import { sha256 } from '../support/fake-connector.ts';
import { engineFor, seedCollection } from '../support/sync-fixtures.ts';

const CHILD = path.resolve(import.meta.dirname, '../support/sync-child.ts');

function runChild(args: string[]): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  // `node --import tsx` runs the script in this very process, so SIGKILL hits the engine itself (a tsx
  // wrapper would forward it to a grandchild instead).
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: childEnv({}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exit };
}

/** Every file outside tmp/ must be a complete blob whose content hashes to its name. */
function visibleBlobs(root: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    if (path.relative(root, full).startsWith('tmp')) continue;
    expect(entry.name).toMatch(/^[0-9a-f]{64}$/);
    expect(crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex')).toBe(entry.name);
    found.push(entry.name);
  }
  return found;
}

for (const database of testDatabases) {
  describe(`crash safety (${database.name})`, () => {
    let db: Database;
    let target: string[];
    let close: () => Promise<void>;
    let blobRoot: string;

    beforeAll(async () => {
      const opened = await database.open();
      ({ db, close } = opened);
      target = opened.sqlitePath ? [opened.sqlitePath] : [opened.url!, opened.schema!];
      blobRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-crash-'));
    });
    afterAll(async () => {
      await close();
      fs.rmSync(blobRoot, { recursive: true, force: true });
    });

    it('a run killed with SIGKILL mid-run resumes from its last checkpoint: exactly-once items, no partial blob', async () => {
      const { collectionId } = await seedCollection(db);
      const engine = engineFor(db, createFsBlobStore({ root: blobRoot }), [], { workers: 'none' });
      const { runId } = await engine.start(collectionId);
      const count = async () =>
        Number(
          (
            await db
              .selectFrom('items')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('collection_id', '=', collectionId)
              .executeTakeFirstOrThrow()
          ).n,
        );

      const first = runChild([runId, blobRoot, ...target]);
      const deadline = Date.now() + 30_000;
      while ((await count()) < 9 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      first.child.kill('SIGKILL');
      expect(await first.exit).toBeNull();
      expect(first.output()).not.toContain('OUTCOME');

      const interrupted = await new RunRepo(db).get(runId);
      expect(interrupted!.status).toBe('running');
      const lastCheckpoint = JSON.parse(interrupted!.checkpoint!) as { state: { unit: number } };
      expect(lastCheckpoint.state.unit).toBeGreaterThanOrEqual(4);
      const before = await count();
      expect(before).toBeLessThan(CRASH_ITEMS);
      visibleBlobs(blobRoot);

      const second = runChild([runId, blobRoot, ...target]);
      expect(await second.exit).toBe(0);
      const out = second.output();
      expect(out).toContain(`COLLECT ${JSON.stringify({ checkpoint: lastCheckpoint.state })}`);
      expect(out).toContain('OUTCOME {"status":"succeeded","error":null}');

      const run = await new RunRepo(db).get(runId);
      expect(run).toMatchObject({ status: 'succeeded', attempt: 2 });
      const items = await db
        .selectFrom('items')
        .select(['source_id', 'sha256', 'size', 'holds_ref'])
        .where('collection_id', '=', collectionId)
        .orderBy('source_id')
        .execute();
      expect(items).toHaveLength(CRASH_ITEMS);
      for (let i = 0; i < CRASH_ITEMS; i++) {
        const bytes = crashBytes(i);
        expect(items.find((r) => r.source_id === `f${i}`)).toEqual({
          source_id: `f${i}`,
          sha256: sha256(bytes),
          size: bytes.length,
          holds_ref: 1,
        });
      }
      const refs = await db
        .selectFrom('blob_refs')
        .select(['sha256', 'refs'])
        .where(
          'sha256',
          'in',
          items.map((r) => r.sha256!),
        )
        .execute();
      expect(refs.every((r) => r.refs === 1)).toBe(true);
      const visible = visibleBlobs(blobRoot);
      for (const item of items) expect(visible).toContain(item.sha256);
      // The audit log saw one run: started once (the resumed attempt records nothing new), finished once.
      const audit = await db
        .selectFrom('audit_log')
        .select(['action', 'outcome', 'detail'])
        .where('target_id', '=', collectionId)
        .orderBy('seq')
        .execute();
      expect(audit.map((a) => [a.action, a.outcome, JSON.parse(a.detail!).run_id])).toEqual([
        ['run.start', 'started', runId],
        ['run.finish', 'succeeded', runId],
      ]);
    });
  });
}
