import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, runCustody, spawnCustody } from '../support/process.ts';

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
    for (const name of ['serve', 'worker', 'admin', 'sandbox', 'login', 'workspaces', 'collections', 'manifest', 'items', 'search']) expect(top.stdout).toContain(`  ${name}`);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/Usage: custody collections start \[options\] <id>[\s\S]*--watch/);
    expect(nested.code).toBe(0);
    expect(nested.stdout).toMatch(/--redirect-allow <url>/);
    for (const bad of [unknown, missing, mistyped]) {
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      noStack(bad.stderr);
    }
    expect(unknown.stderr).toBe("custody: unknown option '--bogus'\n");
    expect(missing.stderr).toMatch(/missing required argument 'id'/);
    expect(mistyped.stderr).toMatch(/unknown command 'colections'.*collections/);
  }, 60_000);

  it('sandbox: a taken port is one line and exit 1; port 0 takes any free port and prints the ports it got', async () => {
    const blocker = net.createServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    try {
      const res = await runCustody(['sandbox', '--zoom-port', String(taken), '--ms-port', '0'], {});
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(`custody: port ${taken} for the Zoom simulator is taken: pick another with --zoom-port <port> (0 = any free port)\n`);
    } finally {
      blocker.close();
    }

    const proc = spawnCustody('sandbox', ['sandbox', '--zoom-port', '0', '--ms-port', '0'], {});
    try {
      const deadline = Date.now() + 30_000;
      while (!/Microsoft simulator on port \d+/.test(proc.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const [, zoomPort, msPort] = /Zoom simulator on port (\d+), Microsoft simulator on port (\d+)/.exec(proc.output()) ?? [];
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
