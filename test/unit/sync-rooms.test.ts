import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SYNC = path.resolve(import.meta.dirname, '../../src/sync');

/**
 * The rooms of src/sync in the order the walk of one run meets them (docs/architecture.md): the request side
 * (engine.ts, then runs/ readiness and queueing), the job queue (jobs/), execution (execution/), the run's end
 * (runs/run-end.ts, runs/tally.ts), what comes next (schedule/), then the rooms every stage may use (the shared
 * types of deps.ts and engine-api.ts, provider sessions last). A file may
 * import from its own room or from a room further down this list, never back up it.
 */
const ROOMS: Array<{ room: string; files: (rel: string) => boolean }> = [
  { room: 'engine', files: (f) => f === 'engine.ts' },
  { room: 'runs (request)', files: (f) => f === 'runs/readiness.ts' || f === 'runs/queueing.ts' },
  { room: 'jobs', files: (f) => f.startsWith('jobs/') },
  { room: 'execution', files: (f) => f.startsWith('execution/') },
  { room: 'runs (end)', files: (f) => f === 'runs/run-end.ts' || f === 'runs/tally.ts' },
  { room: 'schedule', files: (f) => f.startsWith('schedule/') },
  { room: 'deletion', files: (f) => f.startsWith('deletion/') },
  { room: 'events', files: (f) => f.startsWith('events/') },
  { room: 'shared types', files: (f) => f === 'deps.ts' || f === 'engine-api.ts' },
  { room: 'providers', files: (f) => f.startsWith('providers/') },
];

function rankOf(rel: string): number {
  const i = ROOMS.findIndex((r) => r.files(rel));
  if (i < 0) throw new Error(`src/sync/${rel} is in no room: add it to ROOMS (and to docs/architecture.md)`);
  return i;
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The src/sync files `file` imports (values and types; `import`, `export … from`, `import(…)`). */
function syncImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+['"](\.[^'"]+)['"]/gms),
    ...text.matchAll(/^\s*import\s+['"](\.[^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]);
  return specifiers
    .map((s) => path.resolve(path.dirname(file), s))
    .filter((target) => target.startsWith(SYNC + path.sep))
    .map((target) => path.relative(SYNC, target).split(path.sep).join('/'));
}

describe('the rooms of src/sync import one way', () => {
  it('no file imports from a room the walk of a run meets before its own', () => {
    const against: string[] = [];
    for (const file of sources(SYNC)) {
      const rel = path.relative(SYNC, file).split(path.sep).join('/');
      const from = rankOf(rel);
      for (const target of syncImports(file)) {
        const to = rankOf(target);
        const sameRoom = ROOMS[from] === ROOMS[to];
        if (!sameRoom && to < from) against.push(`${rel} (${ROOMS[from].room}) -> ${target} (${ROOMS[to].room})`);
      }
    }
    expect(against).toEqual([]);
  });

  it('reads the imports it checks', () => {
    // a parser that found nothing would let every arrow through
    expect(syncImports(path.join(SYNC, 'jobs/handlers.ts'))).toContain('execution/run-worker.ts');
    expect(syncImports(path.join(SYNC, 'runs/run-end.ts'))).toContain('deps.ts');
  });
});
