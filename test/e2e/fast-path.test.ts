import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceTokens } from '../../src/auth/service-tokens.ts';
import { sha256Hex } from '../../src/domain/seal.ts';
import { AccountRepo } from '../../src/store/accounts.ts';
import { TokenRepo } from '../../src/store/tokens.ts';
import { jsonOf, newCollection, startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases, type TestDatabase } from '../support/databases.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * One statement run by another process (its own connection): what `custody admin revoke-client` or a second API
 * process does to the database the server under test reads.
 */
function inAnotherProcess(db: Awaited<ReturnType<TestDatabase['open']>>, statement: string, params: string[]): void {
  const script = db.sqlitePath
    ? `const S = require('better-sqlite3'); const d = new S(process.argv[1]); d.pragma('busy_timeout = 5000'); d.prepare(process.argv[2]).run(JSON.parse(process.argv[3])); d.close();`
    : `let n = 0; const pg = require('pg'); const c = new pg.Client({ connectionString: process.argv[1], options: '-c search_path=' + process.argv[4] });
       c.connect().then(() => c.query(process.argv[2].replace(/\\?/g, () => '$' + ++n), JSON.parse(process.argv[3]))).then(() => c.end(), (e) => { console.error(e); process.exit(1); });`;
  execFileSync(
    process.execPath,
    ['-e', script, db.sqlitePath ?? db.url!, statement, JSON.stringify(params), db.schema ?? ''],
    { cwd: ROOT, stdio: 'pipe' },
  );
}

/**
 * The authenticated GET of a collection is served without reading on SQLite while the database is unchanged
 * (store/direct.ts). These pin what that must never cost: a revocation or a change made by another process,
 * or by this one, is seen by the very next request, on both stores.
 */
describe.each(testDatabases.map((d) => [d.name, d] as const))('fast path reads on %s', (_n, database) => {
  let t: TestApp;
  let opened: Awaited<ReturnType<TestDatabase['open']>>;
  beforeAll(async () => {
    opened = await database.open();
    t = await startTestApp({ shared: opened, workers: false });
  });
  afterAll(async () => {
    await t.close();
    await opened.close();
  });

  async function tokenAndCollection(account: string) {
    const c = await t.client(account);
    const res = await t.call(null, 'POST', '/v1/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret },
    });
    const token = (await jsonOf(res, 200)).access_token as string;
    const collectionId = await newCollection(t.call, token, 'conf', `${account}-conf`);
    // read twice: the second answer may come from what the first kept
    for (let i = 0; i < 2; i++)
      expect((await t.call(token, 'GET', `/v1/collections/${collectionId}`)).status).toBe(200);
    return { ...c, token, collectionId };
  }

  it('refuses an access token at once when another process revokes it, or its client', async () => {
    const a = await tokenAndCollection('revoke-token-co');
    inAnotherProcess(opened, 'update service_tokens set revoked_at = ? where token_hash = ?', [
      new Date().toISOString(),
      sha256Hex(a.token),
    ]);
    const res = await t.call(a.token, 'GET', `/v1/collections/${a.collectionId}`);
    expect(res.status).toBe(401);
    expect((await jsonOf(res)).id).toBe(res.headers.get('x-correlation-id'));

    const b = await tokenAndCollection('revoke-client-co');
    inAnotherProcess(opened, 'update api_clients set revoked_at = ? where id = ?', [
      new Date().toISOString(),
      b.clientId,
    ]);
    expect((await t.call(b.token, 'GET', `/v1/collections/${b.collectionId}`)).status).toBe(401);
  });

  it('shows a collection changed by another process on the next read', async () => {
    const a = await tokenAndCollection('renamed-co');
    inAnotherProcess(opened, 'update collections set name = ? where id = ?', ['renamed elsewhere', a.collectionId]);
    expect((await jsonOf(await t.call(a.token, 'GET', `/v1/collections/${a.collectionId}`), 200)).name).toBe(
      'renamed elsewhere',
    );
    inAnotherProcess(opened, 'update collections set deleting_at = ? where id = ?', [
      new Date().toISOString(),
      a.collectionId,
    ]);
    expect((await t.call(a.token, 'GET', `/v1/collections/${a.collectionId}`)).status).toBe(404);
  });

  it('refuses a token revoked by this process on the next read', async () => {
    const a = await tokenAndCollection('own-revoke-co');
    await new TokenRepo(t.runtime.ctx.db).revokeFamily(
      (await new TokenRepo(t.runtime.ctx.db).find(sha256Hex(a.token)))!.family_id,
      new Date().toISOString(),
    );
    expect((await t.call(a.token, 'GET', `/v1/collections/${a.collectionId}`)).status).toBe(401);
  });

  it("never reads inside another caller's open transaction", async () => {
    const a = await tokenAndCollection('dirty-read-co');
    const { db } = t.runtime.ctx;
    const tokens = createServiceTokens({
      accounts: new AccountRepo(db),
      tokens: new TokenRepo(db),
      ttl: { accessTtlSeconds: 3600, refreshTtlSeconds: 3600 },
    });
    await new AccountRepo(db).revokeClient(a.clientId);
    expect(await tokens.verify(a.token)).toBeNull();
    let during: Promise<unknown> | undefined;
    // a transaction un-revokes the client, then rolls back: a read made meanwhile must not see its write
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('api_clients').set({ revoked_at: null }).where('id', '=', a.clientId).execute();
        await trx.updateTable('service_tokens').set({ revoked_at: null }).where('client_id', '=', a.clientId).execute();
        during = tokens.verify(a.token);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await during).toBeNull();
  });
});
