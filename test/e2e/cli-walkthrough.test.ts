import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCaller, jsonOf, tokenFor, type Json } from '../support/app.ts';
import { BIN, childEnv, freePort, runCustody, startCustody, type ServeProcess } from '../support/process.ts';

/**
 * The README walk-through for both collection types with `bin/custody` alone, against `custody serve` and its
 * in-process simulators: client, login, workspace, wallet, collection, pairing through the consent URL,
 * discovery, filters from a file, a watched sync, runs and their reconciliation, items and a download, the
 * manifest, a legal hold, and deleting it all. The HTTP API is only read to check what the CLI did.
 */
describe('the README walk-through with the CLI alone', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-cli-walk-'));
  const configDir = path.join(dataDir, 'cli-config');
  const work = path.join(dataDir, 'work');
  let server: ServeProcess;
  let callback: string;
  let checkToken: string;
  let call: ReturnType<typeof httpCaller>;

  const cli = (args: string[], timeoutMs = 120_000) =>
    runCustody(args, { CUSTODY_CONFIG_DIR: configDir, DATA_DIR: dataDir }, timeoutMs);
  /** A command that must succeed: stdout and stderr each end with a newline (or are empty). */
  async function ok(args: string[]): Promise<{ stdout: string; stderr: string }> {
    const res = await cli(args);
    expect(res.code, `custody ${args.join(' ')}: ${res.stderr}`).toBe(0);
    for (const stream of [res.stdout, res.stderr])
      if (stream) expect(stream.endsWith('\n'), `custody ${args.join(' ')} output ends with a newline`).toBe(true);
    return res;
  }
  const line = async (args: string[]) => (await ok(args)).stdout.trim();
  const json = async (args: string[]) => JSON.parse((await ok([...args, '--json'])).stdout);

  /** `collections pair`, with this test as the browser: it follows the printed consent URL back to the CLI's listener. */
  async function pair(collection: string): Promise<void> {
    const child = spawn(
      process.execPath,
      [BIN, 'collections', 'pair', collection, '--redirect-to', callback, '--timeout', '120'],
      {
        env: childEnv({ CUSTODY_CONFIG_DIR: configDir }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 90_000;
    while (!/^https?:\/\/\S+\n/.test(stdout) || !/Waiting/.test(stderr)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no consent URL: ${stdout} ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    let next = stdout.split('\n')[0];
    for (let hop = 0; hop < 10 && !next.startsWith(callback); hop++) {
      const res = await fetch(next, { redirect: 'manual' });
      expect(res.status, `${next} → ${res.status}`).toBeGreaterThanOrEqual(300);
      next = new URL(res.headers.get('location')!, next).toString();
    }
    expect(next.startsWith(`${callback}?`)).toBe(true);
    const landed = await fetch(next);
    expect(await landed.text()).toMatch(/^Paired\./);
    expect(await exited).toBe(0);
    expect(stdout.split('\n')[1]).toMatch(new RegExp(`^paired collection ${collection} \\(wallet wal_\\S+\\)$`));
    expect(stdout.endsWith('\n') && stderr.endsWith('\n')).toBe(true);
  }

  beforeAll(async () => {
    fs.mkdirSync(work);
    const port = await freePort();
    callback = `http://127.0.0.1:${await freePort()}/callback`;
    server = await startCustody(
      'serve',
      { DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info' },
      { port, bootMs: 120_000 },
    );
    call = httpCaller(server.url);
  }, 180_000);

  afterAll(async () => {
    await server?.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('client, login, then edrive: wallet, collection, pairing, discovery, filters, watched sync, runs, reconciliation, items, download, manifest', async () => {
    const created = JSON.parse(
      await line(['admin', 'create-client', '--account', 'walk', '--redirect-allow', callback]),
    );
    checkToken = await tokenFor(call, created);
    await ok([
      'login',
      '--url',
      server.url,
      '--client-id',
      created.client_id,
      '--client-secret',
      created.client_secret,
    ]);
    const kept = path.join(configDir, 'token.json');

    const ws = await line(['workspaces', 'create', '--name', 'Case 1', '--description', 'demo']);
    // the first API command signed in once and kept its token, readable by this user only, never printed
    expect(fs.statSync(kept).mode & 0o777).toBe(0o600);
    const wallet = await line(['wallets', 'create', '--name', 'OneDrive', '--type', 'edrive']);
    expect(await json(['wallets', 'list'])).toEqual([
      expect.objectContaining({ onna_id: wallet, config_type: 'edrive', paired: false }),
    ]);
    const col = await line([
      'collections',
      'create',
      '--workspace',
      ws,
      '--name',
      'OneDrive',
      '--type',
      'edrive',
      '--credential',
      wallet,
    ]);

    await pair(col);
    expect(await json(['collections', 'show', col])).toMatchObject({ credentials_paired: true });

    const users = await json(['collections', 'users', col]);
    const user = users[0].id as string;
    const folders = await json(['collections', 'folders', col, '--user', user]);
    const finance = folders.find((f: Json) => f.name === 'Finance') ?? folders[0];
    const filters = {
      [user]: {
        filter_type: 'user_folders',
        filter_name: 'Finance only',
        all_selected: false,
        selected: [{ id: finance.id }],
        excluded: [],
      },
    };
    const file = path.join(work, 'edrive-filters.json');
    fs.writeFileSync(file, JSON.stringify(filters));
    const saved = await ok(['collections', 'filters', col, '--file', file]);
    expect(saved.stdout).toBe('');
    expect(saved.stderr).toBe(`saved the filters of ${col}\n`);
    expect(JSON.parse((await ok(['collections', 'filters', col, '--show'])).stdout)).toEqual(filters);
    const shown = await line(['collections', 'show', col]);
    expect(shown).toContain('filters:');
    expect(shown).toContain(finance.id);

    const watched = await ok(['collections', 'start', col, '--watch', '--interval', '200']);
    expect(watched.stdout).toMatch(/^run run_\S+ succeeded: \d+ listed, \d+ collected/);
    expect(watched.stdout.trim().split('\n')).toHaveLength(1);
    expect(watched.stderr).toMatch(/^Started run run_\S+…\n/);

    const runs = await json(['runs', 'list', col]);
    expect(runs).toHaveLength(1);
    const run = runs[0].run_id as string;
    expect(await line(['runs', 'show', col, run])).toMatch(new RegExp(`^run ${run} succeeded`));
    const report = await json(['runs', 'reconciliation', col, run]);
    expect(report).toMatchObject({ run_id: run, balanced: true });
    const table = await line(['runs', 'reconciliation', col, run]);
    expect(table).toContain('balanced');
    expect(table).toMatch(/TOTAL +\S* *\d+ +\d+/);
    const csv = (await ok(['runs', 'reconciliation', col, run, '--csv'])).stdout.trim().split('\n');
    expect(csv[0]).toMatch(/listed/);
    expect(csv.length).toBe(1 + report.custodians.length);

    const items = await json(['items', 'list', col]);
    expect(items.length).toBe(report.totals.collected);
    const withContent = items.find((i: Json) => i.sha256);
    const out = path.join(work, 'download.bin');
    const downloaded = await line(['items', 'download', col, withContent.onna_id, '--output', out]);
    expect(downloaded).toContain(out);
    expect(crypto.createHash('sha256').update(fs.readFileSync(out)).digest('hex')).toBe(withContent.sha256);

    const manifest = path.join(work, 'manifest.csv');
    await ok(['manifest', col, '--format', 'csv', '--out', manifest]);
    expect(fs.readFileSync(manifest, 'utf8')).toContain(withContent.sha256);

    // Every command so far used one token: the one the first API command got (and no refresh).
    const issued = (await jsonOf(await call(checkToken, 'GET', '/v1/audit?action=token.issue&limit=200'), 200))
      .items as Json[];
    expect(issued.filter((e) => e.client_id === created.client_id)).toHaveLength(2); // this test's own check token + the CLI's one
    expect(fs.readFileSync(kept, 'utf8')).not.toContain(created.client_secret);
    for (const text of [shown, table]) expect(text).not.toMatch(/eyJ|access_token/);

    // The exports are on the audit trail.
    const downloads = (await jsonOf(await call(checkToken, 'GET', '/v1/audit?action=content.download'), 200))
      .items as Json[];
    expect(downloads.map((e) => e.target_id)).toContain(withContent.onna_id);
  }, 600_000);

  it('conf: wallet, collection, pairing, users and channels, filters, sync; then a hold blocks deletion until released, and everything is deleted', async () => {
    const ws = (await json(['workspaces', 'list'])).find((w: Json) => w.name === 'Case 1').onna_id as string;
    const wallet = await line(['wallets', 'create', '--name', 'Zoom', '--type', 'conf']);
    const col = await line([
      'collections',
      'create',
      '--workspace',
      ws,
      '--name',
      'Zoom',
      '--type',
      'conf',
      '--credential',
      wallet,
    ]);
    await pair(col);

    const users = await json(['collections', 'users', col]);
    expect(users.length).toBeGreaterThan(0);
    const channels = await json(['collections', 'channels', col, '--user', users[0].id]);
    expect(Array.isArray(channels)).toBe(true);
    const file = path.join(work, 'conf-filters.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        account_owners: { all_selected: true, selected: [], excluded: [] },
        content_selections: {
          all_selected: false,
          selected: [{ video: true }, { transcript: true }, { chat: true }],
          excluded: [],
        },
        chats: { all_selected: false, selected: [{ 'one-to-one': true }], excluded: [] },
      }),
    );
    await ok(['collections', 'filters', col, '--file', file]);
    const watched = await cli(['collections', 'start', col, '--watch', '--interval', '200']);
    expect([0, 3], watched.stderr).toContain(watched.code);
    expect(watched.stdout).toMatch(/^run run_\S+ (succeeded|completed_with_errors): /);
    const [run] = await json(['runs', 'list', col]);
    expect((await json(['runs', 'reconciliation', col, run.run_id])).balanced).toBe(true);

    const hold = await line(['holds', 'create', '--name', 'Matter 1', '--collection', col]);
    const refused = await cli(['collections', 'delete', col]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(hold);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(await line(['holds', 'release', hold])).toBe(`released hold ${hold}`);
    expect(await json(['holds', 'list', '--status', 'released'])).toEqual([
      expect.objectContaining({ onna_id: hold, status: 'released' }),
    ]);
    expect(await json(['holds', 'list', '--status', 'active'])).toEqual([]);

    const inUse = await cli(['wallets', 'delete', wallet]);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(new RegExp(`409 wallet ${wallet} is used by collection ${col}`));
    await ok(['collections', 'delete', col]);
    expect(await line(['wallets', 'delete', wallet])).toBe(`deleted wallet ${wallet}`);
    expect((await json(['wallets', 'list'])).map((w: Json) => w.onna_id)).not.toContain(wallet);
    for (const c of await json(['collections', 'list', '--workspace', ws]))
      await ok(['collections', 'delete', c.onna_id]);
    await ok(['workspaces', 'delete', ws]);
    expect((await json(['workspaces', 'list'])).map((w: Json) => w.onna_id)).not.toContain(ws);
  }, 600_000);
});
