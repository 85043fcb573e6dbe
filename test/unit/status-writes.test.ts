import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncMove, TRANSITIONS, type SyncEvent } from '../../src/domain/sync-state.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');
const REPOSITORY = path.join('store', 'collections.ts');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' ? [] : sources(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/**
 * A collection's sync_status changes only through the state table: CollectionRepo.transition(id, event) and the
 * scheduler's repair (failWithoutRun) write the status the table gives for an event, and nothing else in src/
 * writes one (migrations aside).
 */
describe('collection statuses are written through the state table only', () => {
  it('no file outside the collection repository writes the collections table or a sync_status', () => {
    const offenders: string[] = [];
    for (const file of sources(SRC)) {
      const rel = path.relative(SRC, file);
      if (rel === REPOSITORY) continue;
      const text = fs.readFileSync(file, 'utf8');
      if (/updateTable\(\s*['"]collections['"]\s*\)/.test(text)) offenders.push(`${rel}: updates collections`);
      if (/update\s+"?collections"?\s+set/i.test(text)) offenders.push(`${rel}: SQL update of collections`);
      if (/\.set\(\s*\{[^}]*\bsync_status\s*:/s.test(text)) offenders.push(`${rel}: sets sync_status`);
    }
    expect(offenders).toEqual([]);
  });

  it('inside the repository, every status written is the one the table gives an event', () => {
    const text = fs.readFileSync(path.join(SRC, REPOSITORY), 'utf8');
    const writes = [...text.matchAll(/\.set\(\s*\{[^}]*\bsync_status\s*:\s*([^,}\s]+)/gs)].map((m) => m[1]);
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.filter((w) => w !== 'move.to')).toEqual([]);
  });

  it('each event leads to one status, from the statuses the table lists it under; cancel ends in error', () => {
    expect(syncMove('cancel')).toEqual({ from: ['pending', 'syncing'], to: 'error' });
    expect(syncMove('start')).toEqual({ from: ['pending', 'synced', 'failed', 'error'], to: 'syncing' });
    expect(syncMove('complete')).toEqual({ from: ['syncing'], to: 'synced' });
    const events = new Set(Object.values(TRANSITIONS).flatMap((t) => Object.keys(t))) as Set<SyncEvent>;
    for (const e of events) expect(syncMove(e).from.length).toBeGreaterThan(0);
  });
});
