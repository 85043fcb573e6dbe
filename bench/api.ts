import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { request } from 'undici';
import { hashClientSecret } from '../src/auth/service-tokens.ts';
import { loadConfig } from '../src/config.ts';
import { createConnectors } from '../src/connectors/index.ts';
import { randomToken } from '../src/domain/seal.ts';
import { createRuntime } from '../src/runtime.ts';

/** Authenticated GET throughput on the embedded default (SQLite), `connections` requests in flight. */
export async function benchApi(requests: number, connections: number): Promise<Record<string, string>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-api-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CUSTODY_SECRET_KEY: 'b'.repeat(40),
    RATE_LIMIT_DEFAULT_PER_MINUTE: String(requests * 2),
    ZOOM_CLIENT_ID: 'bench',
    MS_CLIENT_ID: 'bench',
  });
  const runtime = await createRuntime(config, { log: pino({ level: 'silent' }), connectors: createConnectors(config), workers: false });
  await runtime.app.listen({ host: '127.0.0.1', port: 0 });
  const address = runtime.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const { accounts } = runtime.ctx.repos;
  const accountId = await accounts.ensureAccount('bench');
  const secret = randomToken();
  const clientId = await accounts.createClient(accountId, hashClientSecret(secret));
  const tokenRes = await request(`${base}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
  });
  const { access_token } = (await tokenRes.body.json()) as { access_token: string };
  const ws = await request(`${base}/v1/workspaces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', description: 'bench' }),
  });
  const { onna_id } = (await ws.body.json()) as { onna_id: string };
  let next = 0;
  let failures = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next++ < requests) {
        const res = await request(`${base}/v1/workspaces/${onna_id}`, { headers: { authorization: `Bearer ${access_token}` } });
        await res.body.dump();
        if (res.statusCode !== 200) failures++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return {
    'api: GET /v1/workspaces/{id} (auth + rate limit + SQLite read)': `${(requests / seconds).toFixed(0)} req/s over ${requests} requests, ${connections} in flight, ${failures} non-200`,
  };
}
