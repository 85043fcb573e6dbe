import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { ApiClient } from './flow.ts';
import { hashClientSecret } from '../src/auth/service-tokens.ts';
import { loadConfig } from '../src/config.ts';
import { createConnectors } from '../src/connectors/index.ts';
import { randomToken } from '../src/domain/seal.ts';
import { createRuntime } from '../src/runtime.ts';

/**
 * One server of the API benchmark in its own process (so the load generator does not share its event loop):
 * `product` is the service on the embedded default with its default log level (lines go to /dev/null), `bare`
 * a Fastify with no hooks answering the same JSON. Prints `{url, path, token}` on stdout, runs until SIGTERM.
 */
const kind = process.argv[2];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-api-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  CUSTODY_SECRET_KEY: 'b'.repeat(40),
  // the limiter runs on every request; the budget is just out of the benchmark's reach
  RATE_LIMIT_DEFAULT_PER_MINUTE: String(10_000_000),
  ZOOM_CLIENT_ID: 'bench',
  MS_CLIENT_ID: 'bench',
  ...(process.env.BENCH_DATABASE_URL && { DATABASE_URL: process.env.BENCH_DATABASE_URL }),
});
const log = pino({ level: config.logLevel }, pino.destination('/dev/null'));
const runtime = await createRuntime(config, { log, connectors: createConnectors(config), workers: false });
await runtime.app.listen({ host: '127.0.0.1', port: 0 });
const productUrl = `http://127.0.0.1:${(runtime.app.server.address() as { port: number }).port}`;
const accountId = await runtime.ctx.repos.accounts.ensureAccount('bench');
const secret = randomToken();
const clientId = await runtime.ctx.repos.accounts.createClient(accountId, hashClientSecret(secret));
const client = await ApiClient.connect(productUrl, clientId, secret);
const collectionId = await client.collection('conf');
const token = (client as unknown as { token: string }).token;
const path_ = `/v1/collections/${collectionId}`;
let out = { url: productUrl, path: path_, token };
let close = () => runtime.close();
if (kind === 'bare') {
  const sample = (await client.call('GET', path_)).body as unknown;
  await runtime.close();
  const bare = Fastify();
  bare.get('/v1/collections/:id', async () => sample);
  await bare.listen({ host: '127.0.0.1', port: 0 });
  out = { url: `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`, path: path_, token };
  close = () => bare.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.on(
  'SIGTERM',
  () =>
    void close().then(() => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }),
);
