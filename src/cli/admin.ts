import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { hashClientSecret } from '../auth/service-tokens.ts';
import { randomToken } from '../domain/seal.ts';
import { AccountRepo } from '../store/accounts.ts';
import { recordAudit } from '../store/audit.ts';
import { migrate, openDatabase } from '../store/db.ts';
import path from 'node:path';

/** `custody admin …`: works against the same DATA_DIR / DATABASE_URL, also while the server runs. */
export async function admin(config: Config, argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { account: { type: 'string' }, 'redirect-allow': { type: 'string', multiple: true } },
  });
  const db = openDatabase({ url: config.databaseUrl, sqlitePath: path.join(config.dataDir, 'custody.db') });
  try {
    await migrate(db);
    const accounts = new AccountRepo(db);
    const fail = (msg: string) => (process.stderr.write(`${msg}\n`), 2);
    switch (sub) {
      case 'create-client': {
        if (!values.account) return fail('create-client needs --account <name>');
        const redirects = values['redirect-allow'] ?? [];
        const bad = redirects.find((url) => !isUrl(url));
        if (bad) return fail(`not an absolute http(s) URL: ${bad}`);
        const accountId = await accounts.ensureAccount(values.account);
        for (const url of redirects) await accounts.allowRedirect(accountId, url);
        const secret = randomToken(32);
        const clientId = await accounts.createClient(accountId, hashClientSecret(secret));
        process.stdout.write(`${JSON.stringify({ account_id: accountId, client_id: clientId, client_secret: secret })}\n`);
        return 0;
      }
      case 'allow-redirect': {
        const url = positionals[0];
        if (!values.account || !url) return fail('allow-redirect needs --account <name> <url>');
        if (!isUrl(url)) return fail(`not an absolute http(s) URL: ${url}`);
        const account = await accounts.findAccountByName(values.account);
        if (!account) return fail(`no account named ${values.account}`);
        await accounts.allowRedirect(account.id, url);
        process.stdout.write(`${JSON.stringify({ account_id: account.id, allowed: url })}\n`);
        return 0;
      }
      case 'revoke-client': {
        const clientId = positionals[0];
        if (!clientId) return fail('revoke-client needs <client_id>');
        const client = await accounts.findClient(clientId);
        if (!client || !(await accounts.revokeClient(clientId))) return fail(`no client ${clientId}`);
        await recordAudit(db, { accountId: client.account_id, clientId: null, action: 'client.revoke', targetId: clientId, outcome: 'success', detail: { via: 'cli' } });
        process.stdout.write(`${JSON.stringify({ client_id: clientId, revoked: true })}\n`);
        return 0;
      }
      default:
        return fail('admin commands: create-client, allow-redirect, revoke-client');
    }
  } finally {
    await db.destroy();
  }
}

function isUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
