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
  call: Call;
  /** Polls GET /v1/collections/{id} until `sync_status` is one of `statuses` (see waitForStatus). */
  waitForStatus(token: string, collectionId: string, statuses: string[], timeoutMs?: number): Promise<Json>;
  /** Every live item of a collection, all pages. */
  items(token: string, collectionId: string): Promise<ApiItem[]>;
  /** The whole consent round trip (see consentFlow); the provider's redirect to our callback is delivered here. */
  consent(token: string, opts: ConsentOptions): Promise<URL>;
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
  /** Listen on this port instead of an ephemeral one (a browser needs PUBLIC_URL to match before the app starts). */
  port?: number;
}

/** A real server on 127.0.0.1:0 over a fresh database and data directory. */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-app-'));
  const database = opts.shared ?? (await (opts.database ?? testDatabases[0]).open());
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
  await runtime.app.listen({ host: '127.0.0.1', port: opts.port ?? 0 });
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
    call: httpCaller(url),
    waitForStatus: (token, collectionId, statuses, timeoutMs) =>
      waitForStatus(app.call, token, collectionId, statuses, timeoutMs),
    items: (token, collectionId) => listItems(app.call, token, collectionId),
    consent: (token, opts) => consentFlow(app.call, token, { callbackOrigin: url, ...opts }),
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

// HTTP helpers shared by the tests that drive a server they did not build in-process (child processes too).

export type Json = Record<string, any>;

export type Call = (
  token: string | null,
  method: string,
  path: string,
  init?: { json?: unknown; form?: Record<string, string>; headers?: Record<string, string> },
) => Promise<Response>;

/** fetch against `baseUrl` with a bearer token: a JSON body with `json`, a form with `form`; redirects are not followed. */
export function httpCaller(baseUrl: string): Call {
  return async (token, method, p, init = {}) => {
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
    return fetch(`${baseUrl}${p}`, { method, headers, body, redirect: 'manual' });
  };
}

export async function jsonOf(res: Response, expectStatus?: number): Promise<Json> {
  const text = await res.text();
  if (expectStatus !== undefined && res.status !== expectStatus)
    throw new Error(`expected ${expectStatus}, got ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as Json;
}

/** A service token for an API client (client credentials grant). */
export async function tokenFor(call: Call, client: { client_id: string; client_secret: string }): Promise<string> {
  const res = await call(null, 'POST', '/v1/oauth/token', {
    form: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
  });
  return (await jsonOf(res, 200)).access_token as string;
}

const ENDED = ['synced', 'failed', 'error'];

/**
 * Polls GET /v1/collections/{id} until `sync_status` is one of `statuses`; returns the collection. PATCH pending
 * and POST start move the status before they answer, so an earlier run's `synced` is never mistaken for this
 * one's. A run that ends in a status not asked for fails at once, with its reason.
 */
export async function waitForStatus(
  call: Call,
  token: string,
  collectionId: string,
  statuses: string[],
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  let last: Json | undefined;
  for (;;) {
    last = await jsonOf(await call(token, 'GET', `/v1/collections/${collectionId}`), 200);
    if (statuses.includes(last.sync_status)) return last;
    if (ENDED.includes(last.sync_status)) {
      throw new Error(
        `collection ${collectionId} ended "${last.sync_status}" (wanted ${statuses.join('|')}): ${last.status_reason ?? ''}`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `collection ${collectionId} still "${last.sync_status}" after ${timeoutMs} ms (wanted ${statuses.join('|')})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export interface ApiItem {
  onna_id: string;
  kind: string;
  source_id: string;
  name: string;
  path: string;
  custodian: string;
  size: number | null;
  mime_type: string | null;
  sha256: string | null;
  md5: string | null;
  provider_hash: { type: string; value: string } | null;
  hash_verified: boolean | null;
  run_id: string;
  metadata: Record<string, unknown>;
}

export async function listItems(call: Call, token: string, collectionId: string): Promise<ApiItem[]> {
  const out: ApiItem[] = [];
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page = await jsonOf(await call(token, 'GET', `/v1/collections/${collectionId}/items?limit=200${q}`), 200);
    out.push(...(page.items as ApiItem[]));
    cursor = page.cursor as string | null;
  } while (cursor);
  return out;
}

export interface ConsentOptions {
  type: 'conf' | 'edrive';
  redirectTo: string;
  state?: string;
  /** Where the provider's redirect to our callback is delivered: another API process behind the same PUBLIC_URL. */
  callbackOrigin?: string;
  /** Sees (and may replace) the provider URL before the browser opens it. */
  atProvider?(url: URL): URL | void;
}

/**
 * authorization_url (conf: 302, edrive: 200 JSON) → the provider (302 to our callback) → our callback (302), as a
 * browser follows them, until the browser lands on `redirect_to` (`?code=…&state=…` or `?error=…`), which is
 * returned. Our callback may send the browser back to the provider for a further step (e.g. an admin's sign-in
 * after admin consent); each provider hop must answer 302.
 */
export async function consentFlow(call: Call, token: string, opts: ConsentOptions): Promise<URL> {
  const query = new URLSearchParams({
    redirect_to: opts.redirectTo,
    ...(opts.state !== undefined && { state: opts.state }),
  });
  const res = await call(token, 'GET', `/v1/collections/authorization_url/${opts.type}?${query}`);
  let next =
    res.status === 302
      ? new URL(res.headers.get('location')!)
      : new URL((await jsonOf(res, 200)).authorization_url as string);
  next = opts.atProvider?.(next) ?? next;
  const target = new URL(opts.redirectTo);
  const callbackPath = `/v1/oauth/callback/${opts.type}`;
  for (let hop = 0; hop < 6; hop++) {
    const atProvider = await fetch(next, { redirect: 'manual' });
    if (atProvider.status !== 302) throw new Error(`the provider answered ${atProvider.status} at ${next.pathname}`);
    const callback = new URL(atProvider.headers.get('location')!);
    if (callback.pathname !== callbackPath) throw new Error(`the provider sent the browser to ${callback.pathname}`);
    const back = await fetch(`${opts.callbackOrigin ?? callback.origin}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
    });
    if (back.status !== 302) throw new Error(`our callback answered ${back.status}: ${await back.text()}`);
    next = new URL(back.headers.get('location')!);
    if (next.origin === target.origin && next.pathname === target.pathname) return next;
  }
  throw new Error('the consent flow did not come back to redirect_to');
}

/** consentFlow, then pair_credentials with the code the browser brought back. */
export async function pairFlow(call: Call, token: string, collectionId: string, opts: ConsentOptions): Promise<void> {
  const landed = await consentFlow(call, token, opts);
  const code = landed.searchParams.get('code');
  if (!code) throw new Error(`no pairing code: ${landed.search}`);
  if (opts.state !== undefined && landed.searchParams.get('state') !== opts.state)
    throw new Error(`the client state came back as ${landed.searchParams.get('state')}`);
  const res = await call(
    token,
    'POST',
    `/v1/collections/${collectionId}/pair_credentials?auth_code=${encodeURIComponent(code)}`,
  );
  if (res.status !== 204) throw new Error(`pair_credentials answered ${res.status}: ${await res.text()}`);
}

/** Workspace, wallet and collection of a type; returns the collection id. */
export async function newCollection(call: Call, token: string, type: 'conf' | 'edrive', name: string): Promise<string> {
  const post = async (p: string, json: unknown) =>
    (await jsonOf(await call(token, 'POST', p, { json }), 201)).onna_id as string;
  const ws = await post('/v1/workspaces', { name: `Matter ${name}`, description: type });
  const wallet = await post('/v1/wallet', { name, credential_type_name: 'Datasource', config_type: type });
  return post('/v1/collections', { name, onna_parent_id: ws, type, credential_id: wallet });
}

/** The manifest in both formats: the JSON document, and the CSV's rows as objects keyed by its header. */
export async function fetchManifest(
  call: Call,
  token: string,
  collectionId: string,
): Promise<{ json: Json; csv: Array<Record<string, string>> }> {
  const json = await jsonOf(await call(token, 'GET', `/v1/collections/${collectionId}/manifest?format=json`), 200);
  const res = await call(token, 'GET', `/v1/collections/${collectionId}/manifest?format=csv`);
  if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/csv'))
    throw new Error(`csv manifest: ${res.status}`);
  const [header, ...rows] = parseCsv(await res.text());
  return { json, csv: rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? '']))) };
}

/** RFC 4180 rows: quoted cells may hold commas, CRLF and doubled quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw new Error('csv: unterminated quoted cell');
      cell += text.slice(i + 1, end);
      i = end + 1;
      // A doubled quote is a literal quote; its second half then opens the rest of the quoted cell.
      if (text[i] === '"') cell += '"';
      continue;
    }
    if (ch === ',' || ch === '\r') {
      row.push(cell);
      cell = '';
      if (ch === '\r') {
        rows.push(row);
        row = [];
        i += 1;
      }
    } else cell += ch;
    i += 1;
  }
  return rows;
}
