import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, runCustody, spawnCustody } from '../support/process.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |ERR_PARSE_ARGS|CommanderError/);

describe('bin/custody usage', () => {
  it('answers -h and --help on every level with exit 0, and bad usage with one line and exit 2', async () => {
    const [top, sub, nested, unknown, missing, mistyped] = await Promise.all([
      runCustody(['-h'], {}),
      runCustody(['collections', 'start', '--help'], {}),
      runCustody(['admin', 'create-client', '-h'], {}),
      runCustody(['admin', 'create-client', '--account', 'a', '--bogus'], {}),
      runCustody(['manifest'], {}),
      runCustody(['colections', 'list'], {}),
    ]);
    expect(top.code).toBe(0);
    for (const name of [
      'serve',
      'worker',
      'admin',
      'sandbox',
      'login',
      'workspaces',
      'collections',
      'manifest',
      'items',
      'search',
    ])
      expect(top.stdout).toContain(`  ${name}`);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/Usage: custody collections start \[options\] <collection>[\s\S]*--watch/);
    expect(nested.code).toBe(0);
    expect(nested.stdout).toMatch(/--redirect-allow <url>/);
    for (const bad of [unknown, missing, mistyped]) {
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      noStack(bad.stderr);
    }
    expect(unknown.stderr).toBe("custody: unknown option '--bogus'\n");
    expect(missing.stderr).toMatch(/missing required argument 'collection'/);
    expect(mistyped.stderr).toMatch(/unknown command 'colections'.*collections/);
  }, 60_000);

  it('names an unknown option (with a suggestion) before any missing required one; --help of every command lists its options', async () => {
    const [misspelt, nothing] = await Promise.all([
      runCustody(['admin', 'create-client', '--acount', 'x'], {}, 90_000),
      runCustody(['admin', 'create-client'], {}, 90_000),
    ]);
    expect(misspelt).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "custody: unknown option '--acount' (did you mean --account?)\n",
    });
    expect(nothing).toMatchObject({ code: 2, stderr: "custody: required option '--account <name>' not specified\n" });

    // The commands of the walk-through, each with the options its --help must list (the fixed contract of the CLI).
    const commands: Array<[string[], string[]]> = [
      [['wallets', 'list'], []],
      [
        ['wallets', 'create'],
        ['--name <name>', '--type <type>'],
      ],
      [['wallets', 'delete'], ['<wallet>']],
      [
        ['collections', 'pair'],
        ['<collection>', '--open', '--redirect-to <url>', '--timeout <seconds>'],
      ],
      [
        ['collections', 'filters'],
        ['<collection>', '--file <json>', '--show'],
      ],
      [['collections', 'delete'], ['<collection>']],
      [['collections', 'show'], ['<collection>']],
      [
        ['runs', 'list'],
        ['<collection>', '--limit <n>'],
      ],
      [
        ['runs', 'show'],
        ['<collection>', '<run>'],
      ],
      [
        ['runs', 'reconciliation'],
        ['<collection>', '<run>', '--csv'],
      ],
      [['holds', 'list'], ['--status <status>']],
      [
        ['holds', 'create'],
        ['--name <name>', '--collection <id>', '--workspace <id>'],
      ],
      [['holds', 'release'], ['<hold>']],
      [
        ['items', 'download'],
        ['<collection>', '<item>', '--output <file>'],
      ],
      [['workspaces', 'delete'], ['<workspace>']],
    ];
    // a few at a time: each is a Node process compiling the sources
    const helps: Array<Awaited<ReturnType<typeof runCustody>>> = [];
    for (let i = 0; i < commands.length; i += 3) {
      helps.push(
        ...(await Promise.all(commands.slice(i, i + 3).map(([args]) => runCustody([...args, '--help'], {}, 90_000)))),
      );
    }
    commands.forEach(([args, options], i) => {
      expect(helps[i].code, args.join(' ')).toBe(0);
      expect(helps[i].stdout).toContain(`Usage: custody ${args.join(' ')}`);
      for (const o of options) expect(helps[i].stdout, `${args.join(' ')} --help`).toContain(o);
    });
  }, 600_000);

  it('serve --help lists every environment variable the README documents for the server, with allowed values', async () => {
    const docs = [
      path.join(ROOT, 'README.md'),
      ...fs
        .readdirSync(path.join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => path.join(ROOT, 'docs', f)),
    ];
    const documented = new Set<string>();
    for (const file of docs) {
      for (const row of fs
        .readFileSync(file, 'utf8')
        .matchAll(/^\| (`[A-Z][A-Z0-9_]+`(?:, `[A-Z][A-Z0-9_]+`)*) \|/gm)) {
        for (const name of row[1].matchAll(/`([A-Z0-9_]+)`/g)) documented.add(name[1]);
      }
    }
    // the CLI's own variables are not the server's
    for (const cli of ['CUSTODY_URL', 'CUSTODY_CONFIG_DIR']) documented.delete(cli);
    expect(documented.size).toBeGreaterThan(30);
    const [serve, worker] = await Promise.all([
      runCustody(['serve', '--help'], {}, 90_000),
      runCustody(['worker', '--help'], {}, 90_000),
    ]);
    for (const help of [serve, worker]) {
      expect(help.code).toBe(0);
      const listed = new Set([...help.stdout.matchAll(/^ {2}([A-Z][A-Z0-9_]+) /gm)].map((m) => m[1]));
      expect([...documented].filter((name) => !listed.has(name))).toEqual([]);
    }
    expect(serve.stdout).toMatch(
      /^ {2}LOG_LEVEL +fatal \| error \| warn \| info \| debug \| trace \| silent, default info$/m,
    );
    expect(serve.stdout).toMatch(/^ {2}PORT +integer 0\.\.65535, default 8080$/m);
  }, 60_000);

  it('sandbox: a taken port is one line and exit 1; port 0 takes any free port and prints the ports it got', async () => {
    const blocker = net.createServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    try {
      const res = await runCustody(['sandbox', '--zoom-port', String(taken), '--ms-port', '0'], {});
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        `custody: port ${taken} for the Zoom simulator is taken: pick another with --zoom-port <port> (0 = any free port)\n`,
      );
    } finally {
      blocker.close();
    }

    const proc = spawnCustody('sandbox', ['sandbox', '--zoom-port', '0', '--ms-port', '0'], {});
    try {
      const deadline = Date.now() + 30_000;
      while (!/Microsoft simulator on port \d+/.test(proc.output()) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      const [, zoomPort, msPort] =
        /Zoom simulator on port (\d+), Microsoft simulator on port (\d+)/.exec(proc.output()) ?? [];
      expect(Number(zoomPort)).toBeGreaterThan(0);
      expect(proc.output()).toContain(`ZOOM_OAUTH_URL=http://127.0.0.1:${zoomPort} `);
      expect(proc.output()).toContain(`MS_LOGIN_URL=http://127.0.0.1:${msPort} `);
      const res = await fetch(`http://127.0.0.1:${msPort}/common/v2.0/.well-known/openid-configuration`);
      expect(res.status).toBeLessThan(500);
    } finally {
      await proc.stop();
    }
  }, 60_000);
});
