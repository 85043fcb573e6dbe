import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildApp, type App } from '../../src/app.ts';
import { hashClientSecret } from '../../src/auth/service-tokens.ts';
import { loadConfig } from '../../src/config.ts';
import { createRegistry } from '../../src/connectors/registry.ts';
import type { Connector } from '../../src/connectors/types.ts';
import { createContext, type AppContext } from '../../src/context.ts';
import { randomToken } from '../../src/domain/seal.ts';
import { createSyncEngine, type SyncEngine } from '../../src/sync/engine.ts';
import { providerResources } from '../../src/sync/provider-context.ts';
import type { TestDatabase } from './databases.ts';

export interface ItemsApp {
  url: string;
  ctx: AppContext;
  engine: SyncEngine;
  token(account: string): Promise<string>;
  call(token: string | null, method: string, p: string, init?: { json?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** The real HTTP app on 127.0.0.1:0 with the sync engine wired as the runtime wires it (runs executed by the test). */
export async function startItemsApp(database: TestDatabase, connectors: Connector[]): Promise<ItemsApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-items-'));
  const opened = await database.open();
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', CUSTODY_SECRET_KEY: 'items-test-key'.padEnd(40, 'x'), PORT: '0', WORKERS: 'none' });
  let engine!: SyncEngine;
  const ctx = await createContext(config, {
    log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    connectors: createRegistry(connectors),
    db: opened.db,
    pgSchema: opened.schema,
    engine: (base) =>
      (engine = createSyncEngine({
        db: base.db,
        sealer: base.sealer,
        blobs: base.blobs,
        connectors: base.connectors,
        config: base.config,
        log: base.log,
        resources: providerResources(base),
      })),
  });
  const app: App = await buildApp(ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const call: ItemsApp['call'] = (token, method, p, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${url}${p}`, { method, headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  };
  return {
    url,
    ctx,
    engine,
    call,
    async token(account) {
      const accountId = await ctx.repos.accounts.ensureAccount(account);
      const secret = randomToken();
      const clientId = await ctx.repos.accounts.createClient(accountId, hashClientSecret(secret));
      const res = await fetch(`${url}/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
      });
      if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    async close() {
      await engine.stop();
      await app.close();
      await ctx.close();
      await opened.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
