import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, freePort, startCustody, type ServeProcess } from '../support/process.ts';
import { matchesStated, readmeWalk } from '../support/readme-walk.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Issue 23 item 7: the README's walk-through is executed, as written. Its `sh walk-through` blocks run in order in
 * one bash, from the repository's folder, against `custody serve` with its in-process simulators (what `npm start`
 * runs), and every `# → …` the README states is compared with what that command printed. Changing a step or an
 * answer in the README without the service agreeing fails here.
 */
describe('the README walk-through, run as written', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-readme-'));
  let server: ServeProcess;

  beforeAll(async () => {
    const port = await freePort();
    server = await startCustody(
      'serve',
      { DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info' },
      { port, bootMs: 120_000 },
    );
  }, 180_000);

  afterAll(async () => {
    await server?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('every block runs and every stated output is what the command printed', async () => {
    const walk = readmeWalk(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    // Both collection types, the differences between them and the CLI are all stated.
    expect(walk.checks.length).toBeGreaterThan(40);
    const out = path.join(dataDir, 'walk-out');
    fs.mkdirSync(out);
    const child = spawn('bash', ['-c', walk.script], {
      cwd: ROOT,
      env: childEnv({
        BASE: server.url,
        DATA_DIR: dataDir,
        CUSTODY_CONFIG_DIR: path.join(dataDir, 'cli'),
        WALK_OUT: out,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.stdout.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(timer);

    const results = walk.checks.map((check, i) => {
      const file = path.join(out, String(i));
      const printed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
      return { ...check, printed, ok: printed !== undefined && matchesStated(check.expected, printed) };
    });
    const reached = results.filter((r) => r.printed !== undefined);
    const wrong = reached.filter((r) => !r.ok).map((r) => `${r.line}\n  printed: ${JSON.stringify(r.printed)}`);
    expect(wrong, 'README lines whose stated output differs').toEqual([]);
    expect(code, `the walk-through stopped after: ${reached.at(-1)?.line}\n${stderr.slice(-2000)}`).toBe(0);
    expect(reached).toHaveLength(walk.checks.length);
  }, 300_000);
});

describe('reading the walk-through out of Markdown', () => {
  const md = ['Text', '```sh', 'not run', '```', '```sh walk-through', 'A=1', 'echo "$A"   # → 1', '```'].join('\n');

  it('keeps only walk-through blocks, and captures each line that states its output', () => {
    const walk = readmeWalk(md);
    expect(walk.script).not.toContain('not run');
    expect(walk.script).toContain('A=1');
    expect(walk.script).toContain('{ echo "$A"\n} > "$WALK_OUT/0"');
    expect(walk.checks).toEqual([{ line: 'echo "$A"   # → 1', expected: '1' }]);
  });

  it('matches stated output exactly, with … standing for any text', () => {
    expect(matchesStated('run run_… succeeded', 'run run_ab12 succeeded\n')).toBe(true);
    expect(matchesStated('204', '200\n')).toBe(false);
    expect(matchesStated('a (b) [c]', 'a (b) [c]')).toBe(true);
    expect(matchesStated('x…', 'xy\nz')).toBe(true);
    expect(matchesStated('x', 'xy')).toBe(false);
  });
});
