import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/store/db.ts';
import { AccountRepo } from '../../src/store/accounts.ts';
import { childEnv } from '../support/process.ts';

const run = promisify(execFile);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-cli-'));
const bin = path.resolve('bin/custody');

async function custody(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(bin, args, { env: childEnv({ DATA_DIR: dataDir, ...env }) });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('bin/custody admin', () => {
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('create-client prints exactly one JSON line, records the allowlist and keeps only a hash of the secret', async () => {
    const res = await custody([
      'admin',
      'create-client',
      '--account',
      'acme',
      '--redirect-allow',
      'http://localhost:9000/cb',
      '--redirect-allow',
      'https://app.example.com/done',
    ]);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]);
    expect(Object.keys(out)).toEqual(['account_id', 'client_id', 'client_secret']);
    const again = JSON.parse((await custody(['admin', 'create-client', '--account', 'acme'])).stdout);
    expect(again.account_id).toBe(out.account_id);
    expect(again.client_id).not.toBe(out.client_id);

    const db = openDatabase({ sqlitePath: path.join(dataDir, 'custody.db') });
    await migrate(db);
    const accounts = new AccountRepo(db);
    expect(await accounts.isRedirectAllowed(out.account_id, 'http://localhost:9000/cb')).toBe(true);
    expect(await accounts.isRedirectAllowed(out.account_id, 'https://app.example.com/done')).toBe(true);
    expect(await accounts.isRedirectAllowed(out.account_id, 'https://evil.example.com')).toBe(false);
    // the secret is stored only as a hash
    const row = await db
      .selectFrom('api_clients')
      .selectAll()
      .where('id', '=', out.client_id)
      .executeTakeFirstOrThrow();
    expect(row.secret_hash).not.toContain(out.client_secret);

    expect((await custody(['admin', 'allow-redirect', '--account', 'acme', 'https://later.example.com/cb'])).code).toBe(
      0,
    );
    expect(await accounts.isRedirectAllowed(out.account_id, 'https://later.example.com/cb')).toBe(true);

    const revoked = await custody(['admin', 'revoke-client', out.client_id]);
    expect(revoked.code).toBe(0);
    const client = await accounts.findClient(out.client_id);
    expect(client?.revoked_at).toEqual(expect.any(String));
    const audit = await db.selectFrom('audit_log').selectAll().where('target_id', '=', out.client_id).execute();
    expect(audit.map((a) => [a.action, a.account_id, a.outcome])).toEqual([
      ['client.revoke', out.account_id, 'success'],
    ]);
    await db.destroy();
  });

  it('refuses bad usage with a non-zero exit and a message', async () => {
    expect((await custody(['admin', 'create-client'])).code).not.toBe(0);
    // a bad URL refuses the whole command: no account, no allowlist entry is left behind
    expect(
      (
        await custody([
          'admin',
          'create-client',
          '--account',
          'half-made',
          '--redirect-allow',
          'https://ok.example.com',
          '--redirect-allow',
          'nope',
        ])
      ).code,
    ).toBe(2);
    expect(
      (await custody(['admin', 'allow-redirect', '--account', 'half-made', 'https://x.example.com'])).stderr,
    ).toMatch(/no account/);
    expect(
      (await custody(['admin', 'allow-redirect', '--account', 'nobody-here', 'https://x.example.com'])).stderr,
    ).toMatch(/no account/);
    expect((await custody(['admin', 'allow-redirect', '--account', 'acme', 'not a url'])).code).not.toBe(0);
    expect((await custody(['admin', 'revoke-client', 'cli_unknown'])).stderr).toMatch(/no client/);
  });

  it('stops at boot on a bad configuration value, naming the variable', async () => {
    const res = await custody(['serve'], { PORT: 'eighty' });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/PORT/);
  });
});
