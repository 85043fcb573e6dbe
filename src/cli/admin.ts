import path from 'node:path';
import type { Config } from '../config.ts';
import { hashClientSecret } from '../auth/service-tokens.ts';
import { randomToken } from '../domain/seal.ts';
import { AccountRepo } from '../store/accounts.ts';
import { AuditRepo } from '../store/audit.ts';
import { migrate, openDatabase } from '../store/db.ts';
import { CliError, usageError } from './errors.ts';

/** `custody admin …`: works against the same DATA_DIR / DATABASE_URL, also while the server runs. Prints one JSON line. */
async function withAccounts<T>(
  config: Config,
  fn: (accounts: AccountRepo, db: ReturnType<typeof openDatabase>) => Promise<T>,
): Promise<T> {
  const db = openDatabase({ url: config.databaseUrl, sqlitePath: path.join(config.dataDir, 'custody.db') });
  try {
    await migrate(db);
    return await fn(new AccountRepo(db), db);
  } finally {
    await db.destroy();
  }
}

export async function createClient(config: Config, opts: { account: string; redirectAllow?: string[] }): Promise<void> {
  const redirects = opts.redirectAllow ?? [];
  const bad = redirects.find((url) => !isUrl(url));
  if (bad) throw usageError(`not an absolute http(s) URL: ${bad}`);
  await withAccounts(config, async (accounts) => {
    const accountId = await accounts.ensureAccount(opts.account);
    for (const url of redirects) await accounts.allowRedirect(accountId, url);
    const secret = randomToken(32);
    const clientId = await accounts.createClient(accountId, hashClientSecret(secret));
    process.stdout.write(`${JSON.stringify({ account_id: accountId, client_id: clientId, client_secret: secret })}\n`);
  });
}

export async function allowRedirect(config: Config, opts: { account: string }, url: string): Promise<void> {
  if (!isUrl(url)) throw usageError(`not an absolute http(s) URL: ${url}`);
  await withAccounts(config, async (accounts) => {
    const account = await accounts.findAccountByName(opts.account);
    if (!account) throw usageError(`no account named ${opts.account}`);
    await accounts.allowRedirect(account.id, url);
    process.stdout.write(`${JSON.stringify({ account_id: account.id, allowed: url })}\n`);
  });
}

export async function revokeClient(config: Config, clientId: string): Promise<void> {
  await withAccounts(config, async (accounts, db) => {
    const client = await accounts.findClient(clientId);
    if (!client || !(await accounts.revokeClient(clientId))) throw new CliError(`no client ${clientId}`, 2);
    await new AuditRepo(db).record({
      accountId: client.account_id,
      clientId: null,
      action: 'client.revoke',
      targetId: clientId,
      outcome: 'success',
      detail: { via: 'cli' },
    });
    process.stdout.write(`${JSON.stringify({ client_id: clientId, revoked: true })}\n`);
  });
}

function isUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
