import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../config.ts';
import { createConnectors } from '../connectors/index.ts';
import { createRuntime } from '../runtime.ts';

/**
 * Writes the OpenAPI document generated from the route schemas (`npm run openapi`), or with --check fails when
 * the committed copy has drifted from the code (`npm run openapi:check`, part of `npm test`).
 */
const args = process.argv.slice(2);
const check = args.includes('--check');
const target = args.find((a) => !a.startsWith('--')) ?? 'docs/openapi.json';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-openapi-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  PUBLIC_URL: 'http://127.0.0.1:8080',
  LOG_LEVEL: 'silent',
  CUSTODY_SECRET_KEY: 'x'.repeat(40),
  ZOOM_CLIENT_ID: 'doc',
  MS_CLIENT_ID: 'doc',
});
const runtime = await createRuntime(config, {
  log: pino({ level: 'silent' }),
  connectors: createConnectors(config),
  workers: false,
});
await runtime.app.ready();
const doc = `${JSON.stringify(runtime.app.swagger(), null, 2)}\n`;
await runtime.close();
fs.rmSync(dataDir, { recursive: true, force: true });
if (check) {
  const committed = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
  if (committed !== doc) {
    process.stderr.write(`${target} is out of date with the route schemas: run \`npm run openapi\` and commit it.\n`);
    process.exit(1);
  }
  process.stdout.write(`${target} matches the route schemas.\n`);
} else {
  fs.writeFileSync(target, doc);
  process.stdout.write(`wrote ${target}\n`);
}
