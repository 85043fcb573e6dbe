import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { loadConfig } from '../src/config.ts';
import { startBenchApi } from './flow.ts';
import { seedItems } from './scale-items-seed.ts';

/**
 * The manifest's cost in a service process that has done nothing else (scale-items streams it in the process that
 * seeded the collection, whose heap had already grown, which hid the PostgreSQL growth there).
 *
 *   npx tsx bench/manifest-fresh.ts seed <N> <state.json>   (DATABASE_URL: a database of its own, or SQLite in a temp dir)
 *   node --expose-gc --import tsx bench/manifest-fresh.ts stream <state.json>
 *
 * `stream` starts the API, streams the JSON then the CSV manifest to a reader in a child process and prints time to
 * the first byte, total, and the service's peak RSS over its idle level (after gc()). Prints figures only.
 */
const [mode, ...args] = process.argv.slice(2);
const MiB = 1024 * 1024;

const READER = `
const [url, token] = process.argv.slice(1);
const t0 = performance.now();
const res = await fetch(url, { headers: { authorization: 'Bearer ' + token } });
let bytes = 0, first = 0;
for await (const chunk of res.body) { if (!first) first = performance.now() - t0; bytes += chunk.length; }
process.stdout.write(JSON.stringify({ first, total: performance.now() - t0, bytes }) + '\\n');`;

async function api(dataDir: string) {
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CUSTODY_SECRET_KEY: 's'.repeat(40),
    PORT: '0',
    MS_CLIENT_ID: 'unused',
    MS_CLIENT_SECRET: 'unused',
    ZOOM_CLIENT_ID: 'unused',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  });
  return startBenchApi(config, { workers: false, redirect: 'http://127.0.0.1:9/bench-callback' });
}

if (mode === 'seed') {
  const [n, stateFile] = [Number(args[0]), args[1]];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-manifest-'));
  const { runtime, api: client } = await api(dataDir);
  const col = await client.collection('edrive');
  await seedItems(runtime.ctx.db, col, n);
  await runtime.close();
  fs.writeFileSync(stateFile, JSON.stringify({ dataDir, col, n }));
} else if (mode === 'stream') {
  const { dataDir, col, n } = JSON.parse(fs.readFileSync(args[0], 'utf8')) as {
    dataDir: string;
    col: string;
    n: number;
  };
  const { runtime, api: client } = await api(dataDir);
  for (const format of ['json', 'csv']) {
    global.gc?.();
    const idle = process.memoryUsage.rss();
    let peak = idle;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
    const url = `${client.base}/v1/collections/${col}/manifest?format=${format}`;
    const reader = spawn(process.execPath, ['--input-type=module', '-e', READER, url, client.token], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let end = { first: 0, total: 0, bytes: 0 };
    for await (const line of readline.createInterface({ input: reader.stdout })) end = JSON.parse(line) as typeof end;
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage.rss());
    console.log(
      `manifest-fresh ${n} ${format}: TTFB ${end.first.toFixed(0)} ms, total ${end.total.toFixed(0)} ms, ${(end.bytes / MiB).toFixed(1)} MiB, RSS +${((peak - idle) / MiB).toFixed(1)} MiB over idle ${(idle / MiB).toFixed(0)} MiB`,
    );
  }
  await runtime.close();
} else throw new Error('usage: manifest-fresh.ts seed <N> <state.json> | stream <state.json>');
