import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Connector } from '../../src/connectors/types.ts';
import { hashClientSecret } from '../../src/auth/service-tokens.ts';
import { randomToken } from '../../src/domain/seal.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { testDatabases, type TestDatabase } from './databases.ts';

export interface TestApp {
  url: string;
  runtime: Runtime;
  config: Config;
  /** Creates an account (if needed) + API client; returns its credentials. */
  client(account: string, redirects?: string[]): Promise<{ accountId: string; clientId: string; clientSecret: string }>;
  /** A fresh access token for the account (a new client each call unless reused). */
  token(account: string, redirects?: string[]): Promise<string>;
  /** fetch against the server with a bearer token; JSON body when `json` is given. */
  call(token: string | null, method: string, path: string, init?: { json?: unknown; form?: Record<string, string>; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

export type OpenedDatabase = Awaited<ReturnType<TestDatabase['open']>>;

export interface TestAppOptions {
  database?: TestDatabase;
  /** Share an already-open database with another app (two API processes); the caller closes it. */
  shared?: OpenedDatabase;
  env?: Record<string, string>;
  connectors?: (config: Config) => Connector[];
  workers?: boolean;
}

/** A real server on 127.0.0.1:0 over a fresh database and data directory. */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-app-'));
  const database = opts.shared ?? (await (opts.database ?? testDatabases[0]!).open());
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CUSTODY_SECRET_KEY: 'test-key-'.padEnd(40, 'x'),
    PORT: '0',
    ...(database.url && { DATABASE_URL: database.url }),
    ...opts.env,
  });
  const runtime = await createRuntime(config, {
    log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    connectors: opts.connectors?.(config) ?? (await defaultConnectors(config)),
    db: database.db,
    pgSchema: database.schema,
    workers: opts.workers ?? true,
  });
  await runtime.app.listen({ host: '127.0.0.1', port: 0 });
  const address = runtime.app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const { accounts } = runtime.ctx.repos;

  const app: TestApp = {
    url,
    runtime,
    config,
    async client(account, redirects = []) {
      const accountId = await accounts.ensureAccount(account);
      for (const r of redirects) await accounts.allowRedirect(accountId, r);
      const clientSecret = randomToken();
      const clientId = await accounts.createClient(accountId, hashClientSecret(clientSecret));
      return { accountId, clientId, clientSecret };
    },
    async token(account, redirects) {
      const c = await app.client(account, redirects);
      const res = await app.call(null, 'POST', '/v1/oauth/token', {
        form: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret },
      });
      if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    async call(token, method, p, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (token) headers.authorization = `Bearer ${token}`;
      let body: string | undefined;
      if (init.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(init.json);
      } else if (init.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(init.form).toString();
      }
      return fetch(`${url}${p}`, { method, headers, body, redirect: 'manual' });
    },
    async close() {
      await runtime.close();
      if (!opts.shared) await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return app;
}

async function defaultConnectors(config: Config): Promise<Connector[]> {
  const { createConnectors } = await import('../../src/connectors/index.ts');
  return createConnectors(config);
}
